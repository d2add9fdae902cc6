import Foundation
@testable import OpenSpeech
@testable import SpeechEngine
import Testing

/// The volatile strategy over a scripted engine (`WindowDecoder`), without a model: the words a decoding of a window
/// returns are those of a fixed script that the window's audio holds whole, and a word the window cuts is misheard,
/// as a real model guesses at a word cut short. What a user relies on: every word becomes final once, in order, with
/// its time, never the misheard guess, whatever the buffer sizes; volatile results show words not yet final.
@Suite struct LocalAgreementStrategyTests {
    static let rate = 16_000.0

    /// Twenty words, 0.45 s each with 0.15 s between them, from 0.5 s on.
    static let script: [Word] = (0..<20).map { index in
        let start = 0.5 + Double(index) * 0.6
        return Word(start: start, end: start + 0.45, word: " word\(index)", probability: 0.9)
    }

    /// Decodes a window as the script says: the words it holds whole, then the word it cuts (if any) misheard.
    final class ScriptedDecoder: WindowDecoder {
        var decodings = 0
        let isMultilingual = false
        let defaultBeamSize = 1

        func encode(_ text: String) -> [Int] { text.unicodeScalars.map { Int($0.value) } }

        func decodeWindow(samples: [Float], previousTokens: [Int], timeOffset: Double, options: TranscriptionOptions,
                          encodedPositions: Int?) throws -> [Segment] {
            decodings += 1
            let end = timeOffset + Double(samples.count) / LocalAgreementStrategyTests.rate
            var words = LocalAgreementStrategyTests.script.filter { $0.start >= timeOffset - 0.001 && $0.end <= end }
            if let cut = LocalAgreementStrategyTests.script.first(where: { $0.start < end && $0.end > end }) {
                words.append(Word(start: cut.start, end: end, word: " misheard", probability: 0.3))
            }
            guard let first = words.first, let last = words.last else { return [] }
            return [Segment(id: 1, seek: 0, start: first.start, end: last.end, text: words.map(\.word).joined(),
                            tokens: [], avgLogProb: -0.2, compressionRatio: 1.2, noSpeechProb: 0.01, temperature: 0,
                            words: words, alternatives: nil)]
        }

        func detectLanguage(samples: [Float], encodedPositions: Int?) throws -> [(language: String, probability: Double)] {
            [("en", 1)]
        }
    }

    /// Runs the strategy over 13 s of audio given in buffers of `sizes` (cycled), then finalizes it; returns its results.
    static func run(buffers sizes: [Int], previews: Bool) throws -> [SpeechTranscriber.Result] {
        let settings = TranscriptionProcessor.Settings(
            locale: Locale(identifier: "en-US"), modelID: nil, volatile: true,
            stepSeconds: VolatileDecodeSchedule.agreementSeconds,
            previewSeconds: previews ? VolatileDecodeSchedule.previewSeconds(fastResults: false) : nil,
            beamSize: 1, wordTimes: true, timeRangeAttributes: true, confidence: false, etiquette: false)
        let decoder = ScriptedDecoder()
        var results: [SpeechTranscriber.Result] = []
        // A clock that never moves: every decoding takes no time, so the schedule always keeps up.
        let strategy = LocalAgreementStrategy(decoder: decoder, previewDecoder: nil, settings: settings,
                                              prompt: ContextPrompt(phrases: [], encode: decoder.encode),
                                              speechRegions: nil, clock: { 0 }, output: { results.append($0) })
        let total = Int(13 * rate)
        var position = 0, index = 0
        while position < total {
            let count = min(sizes[index % sizes.count], total - position)
            try strategy.append([Float](repeating: 0, count: count), at: Int64(position))
            position += count
            index += 1
        }
        try strategy.finalize(through: Int64(total))
        #expect(strategy.finalThrough >= Int64(script.last!.end * rate))
        return results
    }

    /// The words of the final results, as `Transcript` reads them.
    static func finalWords(_ results: [SpeechTranscriber.Result]) -> [Transcript.Word] {
        results.filter(\.isFinal).flatMap { Transcript.Segment($0).words }
    }

    @Test(arguments: [false, true])
    func everyWordFinalOnceInOrderWhateverTheBuffers(previews: Bool) throws {
        let expected = Self.script.map { $0.word.trimmingCharacters(in: .whitespaces) }
        var first: [Transcript.Word]?
        for sizes in [[1_600], [160], [4_000], [7_919, 333, 12_000]] {
            let words = Self.finalWords(try Self.run(buffers: sizes, previews: previews))
            #expect(words.map(\.word) == expected, "buffers \(sizes)")
            for (word, scripted) in zip(words, Self.script) {
                #expect(abs(word.start - scripted.start) < 0.001 && abs(word.end - scripted.end) < 0.001, "\(word)")
            }
            if let first { #expect(words == first, "buffers \(sizes)") } else { first = words }
        }
    }

    @Test func finalsFollowEachOtherAndVolatilesShowOnlyWhatIsNotFinal() throws {
        let results = try Self.run(buffers: [1_600], previews: true)
        let finals = results.filter(\.isFinal)
        #expect(finals.count > 1)
        for (before, after) in zip(finals, finals.dropFirst()) {
            #expect(before.range.end.seconds <= after.range.start.seconds + 0.001)
        }
        // Volatile results show words before they are final, and never words already final.
        var finalEnd = 0.0, shown = 0
        for result in results {
            if result.isFinal {
                finalEnd = result.range.end.seconds
                continue
            }
            let words = Transcript.Segment(result).words
            shown += words.count
            #expect(words.allSatisfy { $0.start >= finalEnd - 0.001 }, "\(words) after a final ending at \(finalEnd)")
        }
        #expect(shown >= 10)
    }
}
