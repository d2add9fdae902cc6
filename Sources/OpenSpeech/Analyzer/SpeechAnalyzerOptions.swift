extension SpeechAnalyzer {
    /// How the analyzer runs, as in Apple's Speech.
    public struct Options: Sendable, Equatable {
        /// How long models stay loaded after a session stops using them.
        public enum ModelRetention: Sendable, Equatable {
            /// Unloaded as soon as no session uses them.
            case whileInUse
            /// Kept for a while (60 s here) in case another session starts.
            case lingering
            /// Kept until the process ends or `SpeechModels.endRetention()` is called.
            case processLifetime
        }

        public var priority: TaskPriority
        public var modelRetention: ModelRetention

        public init(priority: TaskPriority, modelRetention: ModelRetention) {
            self.priority = priority
            self.modelRetention = modelRetention
        }

        static let `default` = Options(priority: .medium, modelRetention: .whileInUse)
    }
}

/// Control over the models sessions keep loaded, as in Apple's Speech.
public enum SpeechModels {
    /// Unloads models kept by `.lingering` or `.processLifetime` retention that no session is using.
    public static func endRetention() async {
        await ModelCache.shared.endRetention()
    }
}
