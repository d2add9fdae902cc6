import Foundation
import Testing
@testable import SpeechEngine
import SpeechEvaluation
import TestSupport
import SpeechAudio

/// Biasing lists as users write them, through the real tokenizer and decoder (whisper-tiny.en, JFK): punctuation,
/// digits, non-Latin letters and a 10,000-phrase list build a trie without trapping and leave a clip that holds none
/// of them recognized.
@Suite("Biasing lists through the real tokenizer", .serialized)
struct BiasingListTests {
    static let oddPhrases = [
        "", "   ", "R2-D2", "C++", "e-mail!", "42", "3.14159", "Dr. Who?", "naïve café", "Ünïcödé", "日本語",
        "Москва", "مرحبا", "🙂 emoji", "tab\tand\nnewline", String(repeating: "long ", count: 200),
    ]

    @Test("odd phrases and a 10,000-phrase list: tries built, JFK still recognized")
    func oddAndLargeLists() async throws {
        let item = try #require(Corpus.item("jfk"))
        let model = try await SharedModels.tinyEn()
        // Ten thousand distinct made-up words (letters and digits), as a large product catalogue.
        let large = (0..<10_000).map { "item\(String($0, radix: 36))x\($0 % 97)" }
        let (odd, big) = try await offCooperativePool { () throws -> ([Segment], [Segment]) in
            let session = WhisperSession(model: model)
            let samples = try WAV.read(item.wav16kURL)
            var options = TranscriptionOptions(beamSize: 5)
            options.biasingPhrases = Self.oddPhrases
            let odd = try session.transcribe(samples: samples, options: options)
            options.biasingPhrases = large
            return (odd, try session.transcribe(samples: samples, options: options))
        }
        for segments in [odd, big] {
            let text = segments.map(\.text).joined()
            let wer = WordErrorRate.score(reference: item.transcript, hypothesis: text, language: "en").rate
            #expect(wer <= 0.1, "WER \(wer): \(text)")
        }
        // Every phrase the tokenizer spells is in the trie: non-Latin scripts and digits included.
        let tokenizer = model.tokenizer
        let biasing = WhisperSession(model: model).contextualBiasing(phrases: Self.oddPhrases, weight: 2)
        for phrase in ["日本語", "Москва", "R2-D2", "42"] {
            let tokens = tokenizer.encode(" " + phrase)
            var node = 0
            for token in tokens { node = try #require(biasing.trie.child(of: node, token: token), "\(phrase)") }
            #expect(biasing.trie.isTerminal(node), "\(phrase)")
        }
    }
}
