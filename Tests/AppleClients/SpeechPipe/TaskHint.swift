import Foundation

/// What the user is doing when they speak, in the tool's own terms.
enum TaskHint: String {
    case dictation, search, confirmation
}

#if canImport(Speech)
import Speech

extension TaskHint {
    /// The recognizer's hint for this task.
    var speechTaskHint: SFSpeechRecognitionTaskHint {
        switch self {
        case .dictation: .dictation
        case .search: .search
        case .confirmation: .confirmation
        }
    }
}
#endif
