import Foundation
import Testing
@testable import SpeechEngine
import TestSupport

/// Odd and bad audio: rejected with a typed error, or transcribed without crash or invented speech.
@Suite("Odd input")
struct InputValidationTests {
    @Test("NaN and infinite samples are rejected with their index", arguments: [Float.nan, .infinity, -.infinity])
    func nonFinite(_ value: Float) async throws {
        let model = try await SharedModels.tinyEn()
        var samples = [Float](repeating: 0.01, count: 16000)
        samples[12345] = value
        #expect(throws: EngineError.invalidSample(index: 12345)) {
            _ = try model.transcribe(samples: samples, options: .greedy)
        }
    }

    @Test("empty audio gives no segments")
    func empty() async throws {
        let model = try await SharedModels.tinyEn()
        #expect(try model.transcribe(samples: [], options: .greedy).isEmpty)
    }

    @Test("0.1 s of audio transcribes without error, inside its duration")
    func veryShort() async throws {
        let model = try await SharedModels.tinyEn()
        let item = try #require(Corpus.item("jfk"))
        let samples = Array(try WAV.read(item.wav16kURL).prefix(1600))
        let segments = try model.transcribe(samples: samples, options: .greedy)
        for segment in segments { #expect(segment.start >= 0 && segment.end <= 30) }
    }

    @Test("pure silence gives no text")
    func silence() async throws {
        let model = try await SharedModels.tinyEn()
        let segments = try model.transcribe(samples: [Float](repeating: 0, count: 16000 * 10), options: .init())
        #expect(segments.allSatisfy { $0.text.trimmingCharacters(in: .whitespaces).isEmpty || $0.noSpeechProb > 0.5 })
        #expect(segments.map(\.text).joined().split(separator: " ").count <= 2)
    }

    @Test("white noise gives at most a few words")
    func noise() async throws {
        let model = try await SharedModels.tinyEn()
        var generator = SeededGenerator(seed: 7)
        let samples = (0..<(16000 * 10)).map { _ in Float.random(in: -0.3...0.3, using: &generator) }
        let segments = try model.transcribe(samples: samples, options: .init())
        #expect(segments.map(\.text).joined().split(separator: " ").count <= 6)
        for segment in segments { #expect(segment.start >= 0 && segment.end <= 10.5) }
    }
}
