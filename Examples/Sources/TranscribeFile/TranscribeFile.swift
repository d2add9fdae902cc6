// Transcribes an audio or video file with Apple's SpeechAnalyzer API, then writes its subtitles with OpenSpeech's
// FileTranscriber: `transcribe-file talk.mp4 [en-US]`.
import Foundation
import OpenSpeech

@main
struct TranscribeFile {
    static func main() async throws {
        let arguments = CommandLine.arguments.dropFirst()
        guard let path = arguments.first else {
            FileHandle.standardError.write(Data("usage: transcribe-file FILE [LOCALE]\n".utf8))
            exit(2)
        }
        let url = URL(fileURLWithPath: path)
        let locale = Locale(identifier: arguments.dropFirst().first ?? "en-US")

        // Apple's API, unchanged: install the locale's model once, analyze the file, gather the final text.
        let transcriber = SpeechTranscriber(locale: locale, preset: .transcription)
        if let request = try await AssetInventory.assetInstallationRequest(supporting: [transcriber]) {
            try await request.downloadAndInstall()
        }
        let analyzer = SpeechAnalyzer(modules: [transcriber])
        async let text = transcriber.results.reduce(AttributedString()) { $0 + $1.text }
        if let end = try await analyzer.analyzeSequence(from: AVAudioFile(forReading: url)) {
            try await analyzer.finalizeAndFinish(through: end)
        }
        print(String(try await text.characters).trimmingCharacters(in: .whitespaces))

        // OpenSpeech's addition: the command line's file workflow in one call, as SubRip subtitles beside the file.
        let files = FileTranscriber(options: .init(locale: locale, wordTimestamps: true))
        try await files.installModels()
        let transcript = try await files.transcribe(contentsOf: url)
        let subtitles = url.deletingPathExtension().appendingPathExtension("srt")
        try Data(try transcript.formatted(as: .srt).utf8).write(to: subtitles, options: .atomic)
        print("subtitles: \(subtitles.path) (model \(transcript.model ?? "?"))")
    }
}
