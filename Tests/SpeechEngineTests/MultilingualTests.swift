import Foundation
import Testing
@testable import SpeechEngine
import SpeechEvaluation
import TestSupport

/// whisper-base: language detection, transcription in the detected language, translation.
@Suite("Multilingual (whisper-base)", .serialized)
struct MultilingualTests {
    @Test("language detection names the language of every multilingual clip")
    func detection() async throws {
        let model = try await SharedModels.base()
        let session = WhisperSession(model: model)
        let items = Corpus.items.filter { $0.subset == "multilingual" }
        try #require(items.count >= 10)
        for item in items {
            let ranked = try session.detectLanguage(samples: try WAV.read(item.wav16kURL))
            #expect(ranked.first?.language == item.language, "\(item.id): \(ranked.prefix(3))")
            let total = ranked.reduce(0) { $0 + $1.probability }
            #expect(abs(total - 1) < 1e-3)
        }
    }

    @Test("German is transcribed in German after detection, and translated into English")
    func germanTranscribeAndTranslate() async throws {
        let model = try await SharedModels.base()
        let item = try #require(Corpus.item("pv-cheetah-de"))
        let samples = try WAV.read(item.wav16kURL)
        let session = WhisperSession(model: model)
        let german = try session.transcribe(samples: samples, options: .greedy).map(\.text).joined()
        let wer = WordErrorRate.score(reference: item.transcript, hypothesis: german, language: "de").rate
        #expect(wer < 0.5, "\(german)")
        var options = TranscriptionOptions.greedy
        options.language = "de"
        options.task = .translate
        let english = try session.transcribe(samples: samples, options: options).map(\.text).joined().lowercased()
        #expect(english != german.lowercased())
        #expect(["the ", "a ", "false", "impression", "advertis"].contains { english.contains($0) }, "\(english)")
    }

    @Test("an unknown language code is a typed error")
    func unknownLanguage() async throws {
        let model = try await SharedModels.base()
        var options = TranscriptionOptions.greedy
        options.language = "xx"
        #expect(throws: EngineError.unsupportedLanguage("xx")) {
            _ = try model.transcribe(samples: [Float](repeating: 0, count: 16000), options: options)
        }
    }
}
