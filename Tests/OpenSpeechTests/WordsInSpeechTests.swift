import Foundation
import Testing
@testable import OpenSpeech
import SpeechEngine
import TestSupport

/// Word times kept out of the detector's pauses: only times move, and only where a word runs well past its speech.
@Suite("Words in speech", .serialized)
struct WordsInSpeechTests {
    func word(_ text: String, _ start: Double, _ end: Double) -> Word {
        Word(start: start, end: end, word: text, probability: 0.9)
    }

    /// Regions from seconds, at 16 kHz.
    func regions(_ ranges: [(Double, Double)]) -> [Range<Int64>] {
        ranges.map { Int64($0.0 * 16_000)..<Int64($0.1 * 16_000) }
    }

    @Test("a word stretched over a pause keeps the side it mostly lies in; words within speech, slack under 0.3 s and words outside speech are unchanged")
    func limits() {
        let speech = regions([(0, 2.27), (3.27, 8.0), (10.0, 10.45)])
        let words = [word(" Americans", 1.76, 2.26), word(" ask", 2.26, 3.88), word(" not", 3.88, 4.52),
                     word(" you,", 7.2, 9.5), word(" country.", 10.24, 10.6), word(" um", 8.5, 8.9)]
        let limited = WordsInSpeech.limit(words, to: speech, rate: 16_000)
        #expect(limited.map(\.word) == words.map(\.word))
        #expect(limited[0] == words[0] && limited[2] == words[2])
        #expect(limited[1].start == 3.27 && limited[1].end == 3.88)
        #expect(limited[3].start == 7.2 && limited[3].end == 8.0, "a pause after the word")
        #expect(limited[4] == words[4], "0.15 s past a padded region is the alignment's slack")
        #expect(limited[5] == words[5], "in no speech: as it was")
        #expect(WordsInSpeech.limit(words, to: [], rate: 16_000) == words)
    }

    @Test("JFK through the command line's path (the detector beside the transcriber): \"ask\" starts after the pause, not before it")
    func jfk() async throws {
        try await TestEnvironment.ready()
        let clip = try #require(Corpus.item("jfk"))
        let transcript = try await FileTranscriber(
            options: .init(locale: TestEnvironment.english, wordTimestamps: true), store: TestModels.store)
            .transcribe(contentsOf: clip.wav16kURL)
        let words = transcript.segments.flatMap(\.words)
        let ask = try #require(words.first { $0.word.lowercased().hasPrefix("ask") }, "\(transcript.text)")
        #expect(ask.start >= 3.0 && ask.end <= 4.2, "ask at \(ask.start)–\(ask.end)")
        #expect(words.allSatisfy { $0.start <= $0.end })
    }
}
