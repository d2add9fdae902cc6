/// When live transcription that detects the language decides it: once the speech heard reaches `minimumSeconds`
/// and the model's top language reaches `sureProbability`, or the speech reaches `maximumSeconds` whatever the
/// probability, or the audio ends (`force`). The language is then kept for the rest of the stream. A pure value.
struct LiveLanguageDecision: Sendable, Equatable {
    /// Speech heard before the first detection.
    var minimumSeconds = 2.0
    /// Speech after which the most likely language is taken however unsure.
    var maximumSeconds = 8.0
    /// A top language at or above this probability decides (as `LanguageVote`).
    var sureProbability = LanguageVote.sureProbability

    /// Whether to run detection on `speechSamples` samples (16 kHz) of speech.
    func shouldDetect(speechSamples: Int, force: Bool) -> Bool {
        speechSamples > 0 && (force || Double(speechSamples) >= minimumSeconds * 16_000)
    }

    /// Whether a detection whose top language has `probability` decides the stream's language.
    func accepts(probability: Double, speechSamples: Int, force: Bool) -> Bool {
        force || probability >= sureProbability || Double(speechSamples) >= maximumSeconds * 16_000
    }
}
