// An app-style client of Apple's SFSpeechRecognizer, written for `import Speech` (beside `import AVFoundation` and
// `import CoreMedia`, which stay) with only that import changed:
// a speech-manager class that is its recognizer's delegate, an async wrapper with a checked continuation, tasks
// restarted in rollovers. Not part of OpenSpeech: the legacy API's tests build and run it.
//
//   legacy-app file FILE        the async wrapper
//   legacy-app rollover FILE S  the manager, restarted every S seconds of audio
//   legacy-app microphone S N   the default microphone, N sessions of S seconds, one text line per session
import OpenSpeech

@main
struct App {
    static func main() async {
        let arguments = CommandLine.arguments
        do {
            switch (arguments.count, arguments.count > 1 ? arguments[1] : "") {
            case (3, "file"):
                print(try await transcribe(URL(fileURLWithPath: arguments[2]), locale: Locale(identifier: "en-US")))
            case (4, "rollover"):
                guard let manager = SpeechManager(locale: Locale(identifier: "en-US")), manager.isAvailable else {
                    throw TranscriptionError.unavailable
                }
                let texts = try await transcribeInRollovers(URL(fileURLWithPath: arguments[2]), manager: manager,
                                                            rollover: Double(arguments[3]) ?? 5)
                print(texts.joined(separator: "\n"))
                fputs("tasks: \(texts.count), partial results: \(manager.partialCount), speech: \(manager.detectedSpeech)\n", stderr)
            case (4, "microphone"):
                guard let manager = MicrophoneManager(locale: Locale(identifier: "en-US")) else {
                    throw TranscriptionError.unavailable
                }
                for _ in 0..<(Int(arguments[3]) ?? 1) {
                    try manager.start()
                    fputs("listening\n", stderr)
                    try await Task.sleep(nanoseconds: UInt64((Double(arguments[2]) ?? 5) * 1e9))
                    print(await manager.stop())
                }
            default:
                fputs("usage: legacy-app file FILE | legacy-app rollover FILE SECONDS | legacy-app microphone SECONDS SESSIONS\n", stderr)
                exit(2)
            }
        } catch {
            fputs("error: \(error.localizedDescription)\n", stderr)
            exit(1)
        }
    }
}
