// Client programs of the legacy API in the shapes real tools and apps take (Tests/LegacyClients, Swift 5 mode, only
// `import OpenSpeech`), run as their users run them: each must finish (no hang) and print the clip's words.
import Foundation
import OpenSpeech
import SpeechEvaluation
import Testing
import TestSupport

@Suite(.serialized) struct LegacyClientTests {
    static func run(_ executable: String, _ arguments: [String]) async throws -> (status: Int32, output: String) {
        try await OpenSpeechExecutable.run(arguments, environment: ["OPENSPEECH_HOME": TestModels.home.path],
                                           executable: executable, timeout: 180)
    }

    static func wer(_ output: String, _ clip: CorpusItem) -> Double {
        WordErrorRate.score(reference: clip.transcript, hypothesis: output, language: "en").rate
    }

    @Test("a command-line tool: results on the main queue with a run loop or dispatchMain, on its own queue with a semaphore",
          arguments: ["runloop", "semaphore", "poll", "dispatch"])
    func commandLineTool(mode: String) async throws {
        try await GatingAudio.ready()
        let clip = TestEnvironment.clips("ls-clean")[1]
        let (status, output) = try await Self.run("legacy-cli", [mode, clip.originalURL.path])
        #expect(status == 0, "\(output)")
        #expect(Self.wer(output, clip) < 0.15, "\(output)")
    }

    @Test("a tool that exits while the recognition still runs exits cleanly (the engine's work ends before the process)")
    func exitWhileRecognizing() async throws {
        try await GatingAudio.ready()
        let chapter = try #require(TestEnvironment.clips("longform").first)
        for _ in 0..<3 {
            let (status, output) = try await Self.run("legacy-cli", ["exit-early", chapter.originalURL.path])
            #expect(status == 0, "\(output)")
            #expect(!output.isEmpty)
        }
    }

    @Test("a command-line tool given a missing file: an error naming it, exit status 1")
    func commandLineToolError() async throws {
        try await GatingAudio.ready()
        let (status, output) = try await Self.run("legacy-cli", ["runloop", "/nonexistent/recording.m4a"])
        #expect(status == 1)
        #expect(output.contains("/nonexistent/recording.m4a"), "\(output)")
    }

    @Test("an app's async wrapper over recognitionTask with a checked continuation")
    func asyncWrapper() async throws {
        try await GatingAudio.ready()
        let clip = Corpus.item("jfk")!
        let (status, output) = try await Self.run("legacy-app", ["file", clip.originalURL.path])
        #expect(status == 0, "\(output)")
        #expect(Self.wer(output, clip) < 0.15, "\(output)")
    }

    @Test("an app's speech manager, its recognizer's and tasks' delegate, restarting its task every few seconds")
    func managerWithRollovers() async throws {
        try await GatingAudio.ready()
        let clip = TestEnvironment.clips("ls-clean")[1] // 16.7 s: four tasks of 5 s
        let (status, output) = try await Self.run("legacy-app", ["rollover", clip.originalURL.path, "5"])
        #expect(status == 0, "\(output)")
        #expect(output.contains("tasks: 4,"), "\(output)")
        #expect(output.contains("speech: true"), "\(output)")
        let text = output.split(separator: "\n").filter { !$0.hasPrefix("tasks:") }.joined(separator: " ")
        // Words cut at the restarts may be lost or split, as with Apple's recognizer.
        #expect(Self.wer(text, clip) < 0.25, "\(output)")
    }
}
