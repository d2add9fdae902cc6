/// Errors of transcription input, each with a sentence a person can act on.
public enum EngineError: Error, Equatable, CustomStringConvertible {
    /// A sample is NaN or infinite.
    case invalidSample(index: Int)
    /// The language code is not one the model knows.
    case unsupportedLanguage(String)
    /// A window longer than 30 s was given to the incremental interface.
    case windowTooLong(seconds: Double)
    /// Audio was appended to a long-form transcription after its end.
    case streamFinished

    public var description: String {
        switch self {
        case .invalidSample(let index):
            "The audio holds a NaN or infinite sample (at index \(index)); pass finite 16 kHz samples."
        case .unsupportedLanguage(let code):
            "The model does not know the language \"\(code)\"."
        case .windowTooLong(let seconds):
            "A streaming window is at most 30 s long; got \(seconds) s."
        case .streamFinished:
            "The transcription's audio has ended; start a new LongFormTranscription for more audio."
        }
    }
}
