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

        /// The priority of analysis work. Apple's sets "most, but not all" processing work, and advises calling
        /// the analyzer from a task of the wanted priority. Ours: the tasks the analyzer creates (the input
        /// started by `start(inputSequence:)`, `start(inputAudioFile:finishAfterFile:)` and the initializers that
        /// start analysis, and `cancelAndFinishNow()`'s) run at it, reading the input and the modules'
        /// transcription included; work in methods the caller awaits (`analyzeSequence`, `finalize`,
        /// `prepareToAnalyze`...) runs in the caller's task, at the caller's priority. Default `.medium`.
        public var priority: TaskPriority
        /// How long models stay loaded once no session uses them. Default `.whileInUse`.
        public var modelRetention: ModelRetention

        /// Options with this priority and model retention.
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
