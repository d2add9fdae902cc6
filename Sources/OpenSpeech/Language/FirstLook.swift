/// The first, short look language detection takes: the first `seconds` of speech, whose most likely language
/// decides when the model is at least `sureProbability` sure of it; otherwise detection hears the whole first 30 s
/// window (and more, `LanguageVote`) as faster-whisper does. Most recordings say their language plainly in their first
/// seconds: the encoder then works on 6 s, not 30 s (a long English file's detection costs a fifth). A pure value.
struct FirstLook: Sendable, Equatable {
    /// Speech heard by the first look.
    var seconds = 6.0
    /// A top language at or above this probability decides after the first look alone.
    var sureProbability = 0.8

    /// Samples (16 kHz) of the first look.
    var samples: Int { Int(seconds * 16_000) }

    /// Whether the first look is worth taking on the `available` samples of first speech: only when the speech is
    /// longer than it (else the first window is the same audio).
    func applies(toAvailable available: Int) -> Bool { available > samples }

    /// Whether the first look's top language, at `probability`, decides.
    func decides(probability: Double) -> Bool { probability >= sureProbability }
}
