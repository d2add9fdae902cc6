import Foundation
import Testing
@testable import SpeechEngine
import SpeechEvaluation
import TestSupport
import SpeechAudio

/// Transcription of real recordings with whisper-tiny.en: accuracy, times, long-form seeking.
@Suite("Transcription", .serialized)
struct TranscriptionTests {
    static func text(_ segments: [Segment]) -> String { segments.map(\.text).joined() }

    static func wordErrorRate(_ items: [CorpusItem], options: TranscriptionOptions) async throws -> Double {
        let model = try await SharedModels.tinyEn()
        return try await offCooperativePool {
            let session = WhisperSession(model: model)
            var counts = ErrorCounts()
            for item in items {
                let segments = try session.transcribe(samples: try WAV.read(item.wav16kURL), options: options)
                counts += WordErrorRate.score(reference: item.transcript, hypothesis: text(segments), language: "en")
            }
            return counts.rate
        }
    }

    @Test("LibriSpeech clean, greedy: word error rate under 8%")
    func libriSpeechGreedy() async throws {
        let items = Corpus.items.filter { $0.subset == "ls-clean" }
        try #require(items.count >= 5)
        let wer = try await Self.wordErrorRate(items, options: .greedy)
        #expect(wer < 0.08, "WER \(wer)")
    }

    @Test("LibriSpeech clean, beam 5: word error rate under 8%")
    func libriSpeechBeam() async throws {
        let items = Corpus.items.filter { $0.subset == "ls-clean" }.prefix(4)
        let wer = try await Self.wordErrorRate(Array(items), options: TranscriptionOptions(beamSize: 5))
        #expect(wer < 0.08, "WER \(wer)")
    }

    @Test("JFK: the famous sentence, with segment times inside the recording")
    func jfk() async throws {
        let item = try #require(Corpus.item("jfk"))
        let model = try await SharedModels.tinyEn()
        let segments = try model.transcribe(samples: try WAV.read(item.wav16kURL), options: .greedy)
        let normalized = EnglishTextNormalizer().normalize(Self.text(segments))
        #expect(normalized.contains("ask not what your country can do for you"))
        var previousEnd = 0.0
        for segment in segments {
            #expect(segment.start >= previousEnd - 0.001 && segment.end > segment.start)
            #expect(segment.end <= item.durationSeconds + 0.5)
            #expect(segment.avgLogProb < 0 && segment.avgLogProb > -1)
            #expect(segment.noSpeechProb >= 0 && segment.noSpeechProb < 0.5)
            previousEnd = segment.end
        }
    }

    @Test("a 4-minute recording is transcribed through consecutive windows")
    func longForm() async throws {
        let item = try #require(Corpus.items.first { $0.subset == "longform" })
        let model = try await SharedModels.tinyEn()
        let samples = try WAV.read(item.wav16kURL)
        let segments = try await offCooperativePool { try model.transcribe(samples: samples, options: .greedy) }
        #expect(segments.count > 8)
        for (a, b) in zip(segments, segments.dropFirst()) { #expect(b.start >= a.start) }
        let last = try #require(segments.last)
        #expect(last.end > item.durationSeconds - 30 && last.end <= item.durationSeconds + 1)
        let wer = WordErrorRate.score(reference: item.transcript, hypothesis: Self.text(segments), language: "en").rate
        #expect(wer < 0.3, "WER \(wer)")
    }

    @Test("decoding a window incrementally gives the same tokens as transcribing it, shifted in time")
    func incrementalWindow() async throws {
        let item = try #require(Corpus.item("jfk"))
        let model = try await SharedModels.tinyEn()
        let session = WhisperSession(model: model)
        let samples = try WAV.read(item.wav16kURL)
        let whole = try session.transcribe(samples: samples, options: .greedy)
        let window = try session.decodeWindow(samples: samples, previousTokens: [], timeOffset: 100, options: .greedy)
        #expect(window.flatMap(\.tokens) == whole.flatMap(\.tokens))
        #expect(abs((window.first?.start ?? 0) - 100 - (whole.first?.start ?? 0)) < 0.001)
        // Again with a growing window and the committed text as prompt: still sensible text.
        let firstHalf = Array(samples.prefix(samples.count / 2))
        let early = try session.decodeWindow(samples: firstHalf, previousTokens: [], timeOffset: 0, options: .greedy)
        let prompt = early.flatMap(\.tokens).filter { $0 < model.tokenizer.eot }
        let later = try session.decodeWindow(samples: samples, previousTokens: prompt, timeOffset: 0, options: .greedy)
        #expect(EnglishTextNormalizer().normalize(Self.text(later)).contains("your country"))
    }
}
