// A command-line tool in the shape of those written for Apple's Speech framework, as its authors write it: raw
// 16-bit PCM piped in (`arecord -f S16_LE`, `ffmpeg -f s16le -`, a socket relay), the final text printed. Its files
// say `import Speech`, `@preconcurrency import Speech` and `import AVFoundation`, and its speech code sits under
// `#if canImport(Speech)`; on Linux it builds against OpenSpeech's stand-ins for those modules with no edit at all.
//
//   apple-speech-pipe analyzer RATE CHANNELS     SpeechAnalyzer and SpeechTranscriber (iOS/macOS 26)
//   apple-speech-pipe recognizer RATE CHANNELS   SFSpeechRecognizer with a buffer request (iOS 10+)
import Foundation

@main
struct SpeechPipe {
    enum Mode: String { case analyzer, recognizer }

    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        guard arguments.count == 3, let mode = Mode(rawValue: arguments[0]), let rate = Double(arguments[1]),
              let channels = UInt32(arguments[2]), let source = RawPCMSource(sampleRate: rate, channels: channels)
        else {
            log("usage: apple-speech-pipe analyzer|recognizer SAMPLE-RATE CHANNELS < audio.s16le", prefixed: false)
            exit(64)
        }
        #if canImport(Speech)
        let locale = Locale(identifier: "en-US")
        log("\(EngineReport.line)")
        do {
            switch mode {
            case .analyzer:
                guard #available(macOS 26.0, iOS 26.0, *) else {
                    log("SpeechAnalyzer needs macOS 26")
                    exit(2)
                }
                print(try await AnalyzerTranscription.transcribe(source, locale: locale))
            case .recognizer:
                print(try await RecognizerTranscription.transcribe(source, locale: locale, hint: .dictation))
            }
        } catch {
            log("\(error)")
            exit(1)
        }
        #else
        log("speech recognition needs Apple's Speech framework")
        exit(2)
        #endif
    }
}

/// Writes a line to standard error.
func log(_ line: String, prefixed: Bool = true) {
    FileHandle.standardError.write(Data(((prefixed ? "apple-speech-pipe: " : "") + line + "\n").utf8))
}
