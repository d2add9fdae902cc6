// What a tool built for both Apple's Speech and OpenSpeech does to use OpenSpeech's additions: it imports both.
import Speech
#if canImport(OpenSpeech)
import OpenSpeech
#endif

enum EngineReport {
    /// A line for the log: which speech engine runs, where the tool can tell.
    static var line: String {
        #if canImport(OpenSpeech)
        "OpenSpeech \(BuildInfo.version); transcriber available: \(Speech.SpeechTranscriber.isAvailable)"
        #else
        "Apple's Speech framework"
        #endif
    }
}
