import Foundation
import Testing
import TestSupport

/// The faster-whisper reference loads, caches and covers what the parity tests need.
@Suite struct ReferenceTests {
    @Test func generatesAndCachesJFK() async throws {
        let options = Reference.Options(wordTimestamps: true, ids: ["jfk"])
        let run = try await Reference.run(model: "whisper-tiny.en", options: options)
        let clip = try #require(run.clip("jfk"))
        #expect(clip.segments.count >= 1)
        #expect(clip.tokens.contains(50363))  // <|0.00|> of tiny.en: timestamps are on
        #expect(!clip.words.isEmpty && clip.words.allSatisfy { $0.end >= $0.start })
        #expect(WordErrorRate.score(reference: clip.reference, hypothesis: clip.text, language: "en").rate < 0.1)
        #expect(run.peakRssBytes > 0 && run.loadSeconds > 0)
        // A second request reads the cached file.
        let file = try Reference.cacheFile(modelID: "whisper-tiny.en",
                                           directory: try await TestModels.directory(for: "whisper-tiny.en"), options: options)
        #expect(FileManager.default.fileExists(atPath: file.path))
        let again = try await Reference.run(model: "whisper-tiny.en", options: options)
        #expect(again.clip("jfk")?.tokens == clip.tokens)
    }
}
