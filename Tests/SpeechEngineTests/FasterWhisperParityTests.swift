import Foundation
import Testing
@testable import SpeechEngine
import SpeechEvaluation
import TestSupport
import SpeechAudio

/// Issue 4's correctness bar against faster-whisper, run on the same model directory and audio
/// (`Reference`, computed at test time and cached under `.build/reference`).
@Suite("Parity with faster-whisper", .serialized)
struct FasterWhisperParityTests {
    static let model = "whisper-tiny.en"

    /// Our segments for `clip` with options matching `reference`.
    static func transcribe(_ id: String, options: TranscriptionOptions) async throws -> [Segment] {
        let item = try #require(Corpus.item(id))
        let model = try await SharedModels.tinyEn()
        return try await offCooperativePool { try model.transcribe(samples: try WAV.read(item.wav16kURL), options: options) }
    }

    @Test("float32, beam 1, temperature 0, timestamps: token-identical on ≥ 90 % of English clips, < 1 point WER apart on the rest")
    func tokenParity() async throws {
        let reference = try await Reference.run(model: Self.model, options: .englishParity)
        try #require(reference.clips.count >= 50)
        let options = TranscriptionOptions.greedy
        var identical = 0
        var differing: [String] = []
        for clip in reference.clips {
            let ours = try await Self.transcribe(clip.id, options: options)
            if ours.flatMap(\.tokens) == clip.tokens {
                identical += 1
                continue
            }
            let text = ours.map(\.text).joined()
            let oursWER = WordErrorRate.score(reference: clip.reference, hypothesis: text, language: "en").rate
            let theirsWER = WordErrorRate.score(reference: clip.reference, hypothesis: clip.text, language: "en").rate
            differing.append("\(clip.id): \(String(format: "%.2f", 100 * oursWER)) % vs \(String(format: "%.2f", 100 * theirsWER)) %")
            #expect(abs(oursWER - theirsWER) < 0.01, "\(clip.id): ours \"\(text)\" / faster-whisper \"\(clip.text)\"")
        }
        print("token-identical on \(identical)/\(reference.clips.count) English clips; differing: \(differing)")
        #expect(Double(identical) >= 0.9 * Double(reference.clips.count))
    }

    @Test("beam 5 with fallback: word error rate per subset within 0.3 points")
    func beamWordErrorRate() async throws {
        let reference = try await Reference.run(model: Self.model, options: Reference.Options(
            beamSize: 5, temperatures: [0, 0.2, 0.4, 0.6, 0.8, 1.0], languages: ["en"]))
        var ours: [String: ErrorCounts] = [:], theirs: [String: ErrorCounts] = [:]
        for clip in reference.clips {
            let text = try await Self.transcribe(clip.id, options: TranscriptionOptions(beamSize: 5)).map(\.text).joined()
            ours[clip.subset, default: ErrorCounts()] += WordErrorRate.score(reference: clip.reference, hypothesis: text, language: "en")
            theirs[clip.subset, default: ErrorCounts()] += WordErrorRate.score(reference: clip.reference, hypothesis: clip.text, language: "en")
        }
        for subset in theirs.keys.sorted() {
            let a = 100 * ours[subset]!.rate, b = 100 * theirs[subset]!.rate
            print("beam 5, \(subset): OpenSpeech \(String(format: "%.2f", a)) %, faster-whisper \(String(format: "%.2f", b)) %")
            #expect(abs(a - b) <= 0.3, "\(subset): \(a) % against \(b) %")
        }
    }

    @Test("word timestamps on LibriSpeech: ≥ 90 % of word boundaries within 0.2 s of faster-whisper's")
    func wordTimestamps() async throws {
        let reference = try await Reference.run(model: Self.model, options: .libriSpeechWords)
        try #require(reference.clips.count >= 30)
        var options = TranscriptionOptions.greedy
        options.wordTimestamps = true
        var close = 0, total = 0
        for clip in reference.clips {
            let ours = try await Self.transcribe(clip.id, options: options).flatMap { $0.words ?? [] }
            let theirs = clip.words
            total += theirs.count
            // Boundaries are compared word by word where both give the same words.
            guard ours.map(\.word) == theirs.map(\.word) else { continue }
            for (a, b) in zip(ours, theirs) where abs(a.start - b.start) <= 0.2 && abs(a.end - b.end) <= 0.2 {
                close += 1
            }
        }
        print("word boundaries within 0.2 s: \(close)/\(total)")
        #expect(total > 300)
        #expect(Double(close) >= 0.9 * Double(total))
    }
}
