// A tool written for Apple's Speech framework (Tests/AppleClients/SpeechPipe), built with no edit against the
// package's `Speech`, `AVFoundation` and `CoreMedia` modules (Linux only, where they stand in for Apple's), run as
// its users run it: raw PCM piped in, its `#if canImport(Speech)` code transcribing it (issue 47).
#if os(Linux)
import Foundation
import SpeechEvaluation
import Testing
import TestSupport

@Suite(.serialized) struct AppleClientTests {
    /// A clip as 44.1 kHz stereo 16-bit PCM, as `ffmpeg -f s16le` or a recorder writes it: the tool reads its frame
    /// size from `streamDescription`, converts it to the analyzer's format and transcribes it.
    @Test("a tool written for Apple's Speech transcribes raw PCM from a pipe", arguments: ["analyzer", "recognizer"])
    func speechPipe(mode: String) async throws {
        try await TestEnvironment.ready()
        let clip = try #require(Corpus.item("jfk"))
        let pcm = try await runCommand("ffmpeg", ["-v", "error", "-i", clip.originalURL.path, "-f", "s16le", "-ac", "2",
                                            "-ar", "44100", "-"]).stdout
        let tool = try #require(OpenSpeechExecutable.url(named: "apple-speech-pipe"), "build apple-speech-pipe first")
        let (status, output) = try await runFeedingStandardInput(
            tool, [mode, "44100", "2"], environment: ["OPENSPEECH_HOME": TestModels.home.path],
            bytes: pcm, piece: 65_536, every: .milliseconds(1), exitWithin: .seconds(120))
        #expect(status == 0, "\(output)")
        // Its own lines on stderr say which engine ran: the file importing both `Speech` and `OpenSpeech` compiled.
        #expect(output.contains("apple-speech-pipe: OpenSpeech"), "\(output)")
        let text = output.split(separator: "\n").filter { !$0.hasPrefix("apple-speech-pipe:") }.joined(separator: " ")
        let wer = WordErrorRate.score(reference: clip.transcript, hypothesis: text, language: "en").rate
        #expect(wer < 0.1, "\(output)")
    }
}
#endif
