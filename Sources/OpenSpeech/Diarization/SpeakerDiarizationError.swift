import Foundation

/// Why speakers could not be told apart, each with a sentence a person can act on. OpenSpeech extension.
public enum SpeakerDiarizationError: Error, Equatable, CustomStringConvertible {
    /// The speaker-embedding model is not installed.
    case modelNotInstalled(String)
    /// Speaker counts that contradict each other or are not positive.
    case invalidSpeakerCount(String)
    /// Known speakers that cannot all be labelled: a name empty or given twice.
    case invalidKnownSpeakers(String)
    /// A known speaker's reference with less speech than `KnownSpeaker.minimumSpeechSeconds` (none: silent).
    case unusableReference(name: String, speechSeconds: Double)

    public var description: String {
        switch self {
        case .modelNotInstalled(let id):
            "Telling speakers apart needs the model \(id), which is not installed; install it with `openspeech models install \(id)`."
        case .invalidSpeakerCount(let reason), .invalidKnownSpeakers(let reason): reason
        case .unusableReference(let name, let seconds) where seconds <= 0:
            "The reference recording of \(name) holds no speech; give 2 to 10 s of \(name) speaking alone."
        case .unusableReference(let name, let seconds):
            "The reference recording of \(name) holds only \(String(format: "%.1f", seconds)) s of speech, under the "
                + "\(String(format: "%g", KnownSpeaker.minimumSpeechSeconds)) s needed; give 2 to 10 s of \(name) speaking alone."
        }
    }
}
