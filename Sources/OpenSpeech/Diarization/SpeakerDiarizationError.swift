/// Why speakers could not be told apart, each with a sentence a person can act on. OpenSpeech extension.
public enum SpeakerDiarizationError: Error, Equatable, CustomStringConvertible {
    /// The speaker-embedding model is not installed.
    case modelNotInstalled(String)
    /// Speaker counts that contradict each other or are not positive.
    case invalidSpeakerCount(String)

    public var description: String {
        switch self {
        case .modelNotInstalled(let id):
            "Telling speakers apart needs the model \(id), which is not installed; install it with `openspeech models install \(id)`."
        case .invalidSpeakerCount(let reason): reason
        }
    }
}
