import Foundation
@testable import OpenSpeech
@testable import SpeechEngine
import Testing

/// The final-only strategy over a scripted model family (`LongFormDecoder`), without weights. Each audio sample holds
/// its own timeline position, so the scripted stream knows which stretch of the timeline it was given; it hears a
/// word of the script when the word's audio lies whole and contiguous in a 30 s window, and, like Whisper, moves to
/// the end of the last word it heard when a window cuts a word. What a user relies on: every word final once, in
/// order, at its time, whatever the buffer sizes; a skip in the timeline leaves no word spanning it and the text
/// before it prompts what follows; a finalize makes what came before it final at once.
@Suite struct FinalOnlyStrategyTests {
    static let rate = 16_000

    /// 120 words, 0.45 s each with 0.15 s between them, from 0.5 s to 72.4 s: three windows and more.
    static let script: [Word] = (0..<120).map { index in
        let start = 0.5 + Double(index) * 0.6
        return Word(start: start, end: start + 0.45, word: " word\(index)", probability: 0.9)
    }
    static let total = 75 * rate

    /// A model family whose streams hear the script in the audio they are given.
    final class ScriptedFamily: LongFormDecoder {
        /// The prompt each stream was made with, decoded back to text.
        var prompts: [String] = []
        let isMultilingual = false
        let defaultBeamSize = 1

        func encode(_ text: String) -> [Int] { text.unicodeScalars.map { Int($0.value) } }

        func longFormStream(options: TranscriptionOptions) -> any LongFormStream {
            prompts.append(String(String.UnicodeScalarView((options.initialPromptTokens ?? []).compactMap(Unicode.Scalar.init))))
            return ScriptedStream()
        }
    }

    final class ScriptedStream: LongFormStream {
        /// The audio received, as runs of consecutive timeline positions: (stream position, timeline position, count).
        private var runs: [(stream: Int, timeline: Int, count: Int)] = []
        private var count = 0
        private var seek = 0
        private var finished = false
        var wordTimestampsWhere: ((Range<Int>) -> Bool)?
        var speechSamples: ((Range<Int>) -> Int)?
        var language: String? { seek > 0 ? "en" : nil }
        var decodedThrough: Int { seek }

        func append(_ samples: [Float]) throws {
            precondition(!finished, "append after finish")
            for sample in samples {
                let position = Int(sample)
                if let last = runs.last, last.timeline + last.count == position {
                    runs[runs.count - 1].count += 1
                } else {
                    runs.append((count, position, 1))
                }
                count += 1
            }
        }

        func finish(at position: Int) -> [Float] {
            let cut = min(max(position, seek), count)
            var rest: [Float] = []
            for run in runs where run.stream + run.count > cut {
                let skip = max(0, cut - run.stream)
                rest += ((run.timeline + skip)..<(run.timeline + run.count)).map(Float.init)
            }
            runs = runs.compactMap { run in
                run.stream >= cut ? nil : (run.stream, run.timeline, min(run.count, cut - run.stream))
            }
            count = cut
            finished = true
            return rest
        }

        func decodeAvailable() throws -> [Segment] {
            let window = 30 * FinalOnlyStrategyTests.rate, rate = Double(FinalOnlyStrategyTests.rate)
            var segments: [Segment] = []
            while seek < count, finished || count - seek >= window {
                let end = min(seek + window, count)
                let heard = FinalOnlyStrategyTests.script.compactMap { word -> Word? in
                    guard let start = stream(word.start), let last = stream(word.end), (seek..<end).contains(start),
                          last < end, last - start == Int(((word.end - word.start) * rate).rounded()) else { return nil }
                    return Word(start: Double(start) / rate, end: Double(last) / rate, word: word.word,
                                probability: word.probability)
                }
                if let first = heard.first, let last = heard.last {
                    segments.append(Segment(id: segments.count, seek: seek / 160, start: first.start, end: last.end,
                                            text: heard.map(\.word).joined(), tokens: [], avgLogProb: -0.2,
                                            compressionRatio: 1.2, noSpeechProb: 0.01, temperature: 0, words: heard,
                                            alternatives: nil))
                }
                // The last window ends the stream; a full one moves to the end of its last word (a word it cut is
                // heard again in the next), or to its end when it heard none.
                seek = finished && end == count ? end : heard.last.map { Int(($0.end * rate).rounded()) } ?? end
            }
            return segments
        }

        /// The stream position of timeline second `time`, if the stream holds that sample.
        private func stream(_ time: Double) -> Int? {
            let sample = Int((time * Double(FinalOnlyStrategyTests.rate)).rounded())
            return runs.first { (0..<$0.count).contains(sample - $0.timeline) }.map { $0.stream + sample - $0.timeline }
        }
    }

    static func settings() -> TranscriptionProcessor.Settings {
        TranscriptionProcessor.Settings(
            locale: Locale(identifier: "en-US"), modelID: nil, volatile: false, stepSeconds: 1, previewSeconds: nil,
            beamSize: 1, wordTimes: true, timeRangeAttributes: true, confidence: false, etiquette: false)
    }

    /// The timeline's audio: each sample its own position.
    static func audio(_ range: Range<Int>) -> [Float] { range.map(Float.init) }

    /// Feeds timeline `range` to `strategy` in buffers of `sizes` (cycled).
    static func feed(_ strategy: FinalOnlyStrategy, _ range: Range<Int>, buffers sizes: [Int]) throws {
        var position = range.lowerBound, index = 0
        while position < range.upperBound {
            let count = min(sizes[index % sizes.count], range.upperBound - position)
            try strategy.append(audio(position..<(position + count)), at: Int64(position))
            position += count
            index += 1
        }
    }

    static func strategy(_ family: ScriptedFamily, results: @escaping (SpeechTranscriber.Result) -> Void) -> FinalOnlyStrategy {
        FinalOnlyStrategy(session: family, settings: settings(), prompt: ContextPrompt(phrases: [], encode: family.encode),
                          speechRegions: nil, output: results)
    }

    static func words(_ results: [SpeechTranscriber.Result]) -> [Transcript.Word] {
        #expect(results.allSatisfy { $0.isFinal })
        return results.flatMap { Transcript.Segment($0).words }
    }

    /// Whether `prompt` ends with `text`, spaces aside.
    static func ends(_ prompt: String, with text: String) -> Bool {
        prompt.filter { !$0.isWhitespace }.hasSuffix(text.filter { !$0.isWhitespace })
    }

    static func expectScripted(_ words: [Transcript.Word], _ expected: [Word], _ context: String) {
        #expect(words.map(\.word) == expected.map { $0.word.trimmingCharacters(in: .whitespaces) }, "\(context)")
        for (word, scripted) in zip(words, expected) {
            #expect(abs(word.start - scripted.start) < 0.001 && abs(word.end - scripted.end) < 0.001,
                    "\(context): \(word) for \(scripted)")
        }
    }

    @Test("every word final once, in order, at its time, whatever the buffers")
    func everyWordOnceWhateverTheBuffers() throws {
        for sizes in [[Self.total], [1_600], [4_000], [7_919, 333, 12_000]] {
            var results: [SpeechTranscriber.Result] = []
            let family = ScriptedFamily()
            let strategy = Self.strategy(family) { results.append($0) }
            try Self.feed(strategy, 0..<Self.total, buffers: sizes)
            // Windows are final as soon as their audio has all arrived: most words before the end.
            #expect(Self.words(results).count >= 90, "buffers \(sizes)")
            try strategy.finalize(through: Int64(Self.total))
            Self.expectScripted(Self.words(results), Self.script, "buffers \(sizes)")
            #expect(strategy.finalThrough >= Int64(Self.script.last!.end * Double(Self.rate)) - 1)
            #expect(strategy.samplesTranscribed == Self.total)
            #expect(family.prompts.count == 2, "one stream, resumed after the finalize")
        }
    }

    @Test("a skip in the timeline: no word spans it, times stay the timeline's, the text before prompts what follows")
    func skipStartsAStreamPromptedWithTheTextSoFar() throws {
        var results: [SpeechTranscriber.Result] = []
        let family = ScriptedFamily()
        let strategy = Self.strategy(family) { results.append($0) }
        let gap = (20 * Self.rate)..<(40 * Self.rate)
        try Self.feed(strategy, 0..<gap.lowerBound, buffers: [3_200])
        // As the analyzer does at a jump: what came before is finalized, then the timeline skips.
        try strategy.finalize(through: Int64(gap.lowerBound))
        strategy.skip(to: Int64(gap.upperBound))
        try Self.feed(strategy, gap.upperBound..<Self.total, buffers: [3_200])
        try strategy.finalize(through: Int64(Self.total))
        let rate = Double(Self.rate)
        let expected = Self.script.filter { $0.end * rate < Double(gap.lowerBound) || $0.start * rate >= Double(gap.upperBound) }
        Self.expectScripted(Self.words(results), expected, "skip")
        #expect(strategy.samplesTranscribed == Self.total - gap.count)
        // The stream after the skip (the third: the finalize resumed the first) was prompted with the text before it.
        let before = expected.filter { $0.end * rate < Double(gap.lowerBound) }.map(\.word).joined()
        #expect(family.prompts.count == 4 && Self.ends(family.prompts[2], with: before), "\(family.prompts)")
    }

    @Test("a finalize makes what came before it final at once; the audio after it waits for the next stream")
    func finalizeMidStream() throws {
        var results: [SpeechTranscriber.Result] = []
        let family = ScriptedFamily()
        let strategy = Self.strategy(family) { results.append($0) }
        let point = 10 * Self.rate + 3_000
        try Self.feed(strategy, 0..<(point + 5 * Self.rate), buffers: [1_600])
        #expect(results.isEmpty, "no window has all its audio yet")
        try strategy.finalize(through: Int64(point))
        let rate = Double(Self.rate)
        let before = Self.script.filter { $0.end * rate < Double(point) }
        Self.expectScripted(Self.words(results), before, "finalized at \(point)")
        #expect(strategy.finalThrough >= Int64(before.last!.end * rate) - 1)
        try Self.feed(strategy, (point + 5 * Self.rate)..<Self.total, buffers: [1_600])
        try strategy.finalize(through: Int64(Self.total))
        // A word the finalize cut is in neither stream; every other word once, in order.
        let expected = Self.script.filter { $0.end * rate < Double(point) || $0.start * rate >= Double(point) }
        Self.expectScripted(Self.words(results), expected, "after the finalize")
        #expect(Self.ends(family.prompts[1], with: before.map(\.word).joined()), "\(family.prompts)")
    }
}
