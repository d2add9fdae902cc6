extension SpeechAnalyzer {
    /// How the analyzer runs, as in Apple's Speech.
    public struct Options: Sendable, Equatable {
        /// How long models stay loaded after a session stops using them.
        public enum ModelRetention: Sendable, Hashable, CaseIterable {
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
        /// Whether the analyzer is exempt from the system's limit on simultaneous analyses (macOS/iOS 27). OpenSpeech
        /// sets no such limit (analyses of one model share it; each runs as fast as the CPU allows), so this changes
        /// nothing here; it is kept for code written for Apple's.
        public var ignoresResourceLimits: Bool

        /// Options with this priority and model retention.
        public init(priority: TaskPriority, modelRetention: ModelRetention) {
            self.init(priority: priority, modelRetention: modelRetention, ignoresResourceLimits: false)
        }

        /// Options with this priority, model retention and exemption from resource limits (macOS/iOS 27).
        public init(priority: TaskPriority, modelRetention: ModelRetention, ignoresResourceLimits: Bool) {
            self.priority = priority
            self.modelRetention = modelRetention
            self.ignoresResourceLimits = ignoresResourceLimits
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
