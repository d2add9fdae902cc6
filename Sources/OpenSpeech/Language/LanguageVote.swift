/// How the language of a recording is decided from its first windows of speech: a window whose most likely
/// language reaches `sureProbability` decides (faster-whisper's `language_detection_threshold`); while none does, the
/// next window is heard, up to `maxWindows`, and the language most likely over all of them (probabilities averaged)
/// wins (`SpokenLanguageIdentifier` adds the unfiltered first 30 s when the speech alone left it unsure). A pure value: the model's probabilities in, a decision out.
struct LanguageVote: Sendable, Equatable {
    /// A window's top language at or above this probability decides.
    static let sureProbability = 0.5
    /// Windows heard at most before deciding on the average.
    static let maxWindows = 3

    private var totals: [String: Double] = [:]
    private(set) var windows = 0
    private var sure: DetectedLanguage?

    /// Adds one window's language probabilities.
    mutating func add(_ ranked: [(language: String, probability: Double)]) {
        guard sure == nil else { return }
        windows += 1
        for (language, probability) in ranked { totals[language, default: 0] += probability }
        if let top = ranked.max(by: { $0.probability < $1.probability }), top.probability >= Self.sureProbability {
            sure = DetectedLanguage(language: top.language, probability: top.probability)
        }
    }

    /// Whether a window was sure of its language.
    var isSure: Bool { sure != nil }

    /// Whether another window would change nothing: one window was sure, or `maxWindows` were heard.
    var isDecided: Bool { sure != nil || windows >= Self.maxWindows }

    /// The decision so far; nil before any window.
    var result: DetectedLanguage? {
        if let sure { return sure }
        guard windows > 0, let top = totals.max(by: { ($0.value, $1.key) < ($1.value, $0.key) }) else { return nil }
        return DetectedLanguage(language: top.key, probability: top.value / Double(windows))
    }
}
