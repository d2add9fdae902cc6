import Foundation
import Testing
@testable import SpeechEngine
import TestSupport

/// Word times from cross-attention alignment, against faster-whisper's `word_timestamps=True`.
@Suite("Word timestamps", .serialized)
struct WordTimestampTests {
    @Test("JFK: words spell the segments, in order, and match faster-whisper within 0.2 s")
    func jfkAgainstReference() async throws {
        let model = try await SharedModels.tinyEn()
        let item = try #require(Corpus.item("jfk"))
        var options = TranscriptionOptions.greedy
        options.wordTimestamps = true
        let segments = try model.transcribe(samples: try WAV.read(item.wav16kURL), options: options)
        let words = segments.flatMap { $0.words ?? [] }
        #expect(!words.isEmpty)
        for segment in segments {
            #expect((segment.words ?? []).map(\.word).joined() == segment.text)
        }
        for (a, b) in zip(words, words.dropFirst()) { #expect(a.end <= b.start + 0.001 && a.start <= a.end) }
        #expect(words.allSatisfy { $0.probability > 0 && $0.probability <= 1 })

        let reference = try await Reference.run(model: "whisper-tiny.en",
                                                options: Reference.Options(wordTimestamps: true, ids: ["jfk"]))
        let expected = try #require(reference.clip("jfk")).words
        try #require(expected.count == words.count, "\(expected.map(\.word)) vs \(words.map(\.word))")
        let close = zip(expected, words).filter { abs($0.start - $1.start) <= 0.2 && abs($0.end - $1.end) <= 0.2 }.count
        #expect(Double(close) >= 0.9 * Double(words.count), "\(close)/\(words.count) within 0.2 s")
    }
}
