/// OpenSpeech extension: live transcription that starts in a likely language (the environment's) and checks it against
/// the speech. Detections of the speech heard so far come in (nil while there is none); the check says when the
/// likely language is confirmed, or when the speech is confidently another one and transcription should switch to it.
/// A pure value, tested without a model (`openspeech listen` with no `--language` runs it).
public struct LikelyLanguageCheck: Sendable, Equatable {
    /// What the detections so far mean.
    public enum Verdict: Sendable, Equatable {
        /// Not decided yet: detect again on more speech.
        case undecided
        /// The speech is in the likely language (or no detection was sure it is not): keep it, stop checking.
        case confirmed
        /// The speech is confidently in this other language: switch to it, stop checking.
        case switchTo(DetectedLanguage)
    }

    /// A detection of another language at or above this probability switches.
    public static let switchProbability = 0.8
    /// Detections of speech unsure of another language before the likely one is kept.
    public static let maxUnsureChecks = 3

    /// The likely language's Whisper code (`en`, `fr`...).
    public let likely: String
    private var unsure = 0

    public init(likely: String) {
        self.likely = likely
    }

    /// Takes a detection of the speech so far (nil: no speech heard yet).
    public mutating func take(_ detected: DetectedLanguage?) -> Verdict {
        guard let detected else { return .undecided }
        if detected.language == likely { return .confirmed }
        if detected.probability >= Self.switchProbability { return .switchTo(detected) }
        unsure += 1
        return unsure >= Self.maxUnsureChecks ? .confirmed : .undecided
    }
}
