extension SpeechTranscriber {
    /// What the model writes: the speech's own language, or English. Not in Apple's API (an OpenSpeech extension).
    public enum TranscriptionTask: String, Sendable, CaseIterable {
        /// Text in the language spoken.
        case transcribe
        /// English text, whatever the language spoken (Whisper's translate task; multilingual models only).
        case translate
    }
}
