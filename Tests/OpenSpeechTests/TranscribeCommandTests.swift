import Foundation
import Testing
import TestSupport

/// `openspeech transcribe` failing the way a person can act on.
@Suite struct TranscribeCommandTests {
    @Test func noDownloadWithoutTheModelFailsAndSaysHowToInstall() async throws {
        let home = try makeTemporaryDirectory("openspeech-empty-home")
        defer { try? FileManager.default.removeItem(at: home) }
        let clip = try #require(Corpus.item("jfk"))
        let (status, output) = try await OpenSpeechExecutable.run(
            ["transcribe", clip.wav16kURL.path, "--locale", "en-US", "--no-download", "--quiet"],
            environment: ["OPENSPEECH_HOME": home.path])
        #expect(status != 0)
        #expect(output.contains("is not installed and --no-download was given"), "\(output)")
        #expect(output.contains("openspeech models install"), "\(output)")
        #expect(!FileManager.default.fileExists(atPath: home.appendingPathComponent("models/whisper-tiny.en").path))
    }

    @Test("an unreadable catalog file is an error that names it, not a silently smaller catalog")
    func unreadableCatalog() async throws {
        let folder = try makeTemporaryDirectory("openspeech-bad-catalog")
        defer { try? FileManager.default.removeItem(at: folder) }
        let catalog = folder.appendingPathComponent("catalog.json")
        try Data("{not json".utf8).write(to: catalog)
        let clip = try #require(Corpus.item("jfk"))
        let (status, output) = try await OpenSpeechExecutable.run(
            ["transcribe", clip.wav16kURL.path, "--locale", "en-US", "--quiet"],
            environment: ["OPENSPEECH_HOME": TestModels.home.path, "OPENSPEECH_CATALOG": catalog.path])
        #expect(status != 0)
        #expect(output.contains(catalog.path) && output.contains("catalog"), "\(output)")
    }
}
