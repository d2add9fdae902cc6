@testable import OpenSpeech
import SpeechEngine
import Testing

/// The pure parts of final-only transcription beside a detector, without a model: which audio is chosen from the
/// detector's regions, and how stream positions map back onto the timeline.
@Suite struct SpeechSpanSelectionTests {
    static let second: Int64 = 16_000

    static func selection() -> SpeechSpanSelection {
        SpeechSpanSelection(start: 0, margin: second / 4, joiningSilence: 2 * second)
    }

    /// Runs the selection over `regions` arriving in the given steps, the detector's frontier and the audio received
    /// advancing to each step's position; returns every chosen range, merged where they touch.
    static func run(_ regions: [Range<Int64>], steps: [Int64], end: Int64) -> [Range<Int64>] {
        var selection = selection()
        var chosen: [Range<Int64>] = []
        var next = 0
        for position in steps + [end] {
            // Regions close once the detector has seen 0.1 s of silence after them.
            var closed: [Range<Int64>] = []
            while next < regions.count, regions[next].upperBound + second / 10 <= position { closed.append(regions[next]); next += 1 }
            // The frontier: the start of the speech in progress, else just before the audio received.
            var frontier = position - second / 10
            if next < regions.count { frontier = min(frontier, regions[next].lowerBound) }
            chosen += selection.update(closed: closed, frontier: frontier, available: position)
        }
        chosen += selection.finish(end: end)
        return merged(chosen)
    }

    static func merged(_ ranges: [Range<Int64>]) -> [Range<Int64>] {
        var result: [Range<Int64>] = []
        for range in ranges {
            if let last = result.last, last.upperBound == range.lowerBound {
                result[result.count - 1] = last.lowerBound..<range.upperBound
            } else {
                result.append(range)
            }
        }
        return result
    }

    let regions: [Range<Int64>] = [
        (2 * second)..<(5 * second),            // joined to the next across 1 s of silence
        (6 * second)..<(8 * second),
        (20 * second)..<(21 * second),          // alone: 12 s of silence on each side
        (40 * second)..<(70 * second),          // long speech
        (71 * second)..<(72 * second),          // joined
    ]

    @Test("regions widened by the margin, short silences kept, long ones left out")
    func choosesSpeech() {
        let chosen = Self.run(regions, steps: Array(stride(from: Self.second, through: 80 * Self.second, by: Int(Self.second))),
                              end: 80 * Self.second)
        let q = Self.second / 4
        #expect(chosen == [(2 * Self.second - q)..<(8 * Self.second + q),
                           (20 * Self.second - q)..<(21 * Self.second + q),
                           (40 * Self.second - q)..<(72 * Self.second + q)])
    }

    @Test("the same choice whatever the steps the audio and the regions arrive in")
    func independentOfArrival() {
        let end = 80 * Self.second
        let reference = Self.run(regions, steps: [], end: end)
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<50 {
            var steps: [Int64] = []
            var position: Int64 = 0
            while position < end {
                position += Int64.random(in: 16...(10 * Self.second), using: &generator)
                if position < end { steps.append(position) }
            }
            #expect(Self.run(regions, steps: steps, end: end) == reference)
        }
    }

    @Test("audio is never chosen before it arrives, and what is decided can be let go")
    func availability() {
        var selection = Self.selection()
        let chosen = selection.update(closed: [(Self.second)..<(3 * Self.second)], frontier: 3 * Self.second,
                                      available: 3 * Self.second + 100)
        #expect(chosen == [(Self.second - Self.second / 4)..<(3 * Self.second + 100)])
        #expect(selection.decidedThrough == 3 * Self.second + 100)
        // Long after: the span is complete and the silence since is left out.
        let later = selection.update(closed: [], frontier: 20 * Self.second, available: 20 * Self.second)
        #expect(later == [(3 * Self.second + 100)..<(3 * Self.second + Self.second / 4)])
        #expect(selection.current == nil)
        #expect(selection.decidedThrough == 20 * Self.second - Self.second / 4)
    }

    @Test("no speech: nothing chosen")
    func silence() {
        #expect(Self.run([], steps: [Self.second, 5 * Self.second], end: 60 * Self.second).isEmpty)
    }
}

@Suite struct StreamTimelineTests {
    @Test("stream positions map back piece by piece; boundaries go to the earlier piece for ends")
    func mapping() {
        var timeline = StreamTimeline()
        timeline.append(100..<200)
        timeline.append(200..<300)      // contiguous: one piece
        timeline.append(1_000..<1_050)
        #expect(timeline.pieces.count == 2)
        #expect(timeline.length == 250)
        #expect(timeline.timeline(of: 0, isEnd: false) == 100)
        #expect(timeline.timeline(of: 199, isEnd: false) == 299)
        #expect(timeline.timeline(of: 200, isEnd: false) == 1_000)
        #expect(timeline.timeline(of: 200, isEnd: true) == 300)
        #expect(timeline.timeline(of: 249, isEnd: false) == 1_049)
        #expect(timeline.timeline(of: 400, isEnd: true) == 1_050)   // clamped to the stream
        #expect(timeline.streamPosition(ofTimeline: 150) == 50)
        #expect(timeline.streamPosition(ofTimeline: 500) == 200)
        #expect(timeline.streamPosition(ofTimeline: 5_000) == 250)
        // The break between the two pieces, where a clip of a model that hears clips whole ends.
        #expect(timeline.firstBreak(in: 0..<250) == 200)
        #expect(timeline.firstBreak(in: 200..<250) == nil, "a break at the range's start is not inside it")
        #expect(timeline.firstBreak(in: 0..<200) == nil)
        #expect(timeline.timelineRanges(from: 150) == [250..<300, 1_000..<1_050])
        timeline.discard(before: 210)
        #expect(timeline.pieces.count == 1)
        #expect(timeline.timeline(of: 220, isEnd: false) == 1_020)
    }
}

@Suite struct LocalAgreementTests {
    static func words(_ text: String, from start: Double = 0, probability: Double = 0.9) -> [Word] {
        text.split(separator: " ").enumerated().map { index, word in
            Word(start: start + Double(index) * 0.5, end: start + Double(index) * 0.5 + 0.4, word: " " + word,
                 probability: probability)
        }
    }

    @Test("two decodings commit their common prefix, case and punctuation aside")
    func agreement() {
        var policy = LocalAgreement()
        // Unsure words: only agreement commits them, however much audio came after.
        #expect(policy.agree(with: Self.words("the cat sat", probability: 0.5), heardThrough: 9).isEmpty)
        let agreed = policy.agree(with: Self.words("The cat, sat on", probability: 0.5), heardThrough: 9)
        #expect(agreed.map(\.word) == [" The", " cat,", " sat"])
        #expect(policy.pending.map(\.word) == [" on"])
        _ = policy.commit(agreed, from: 0)
        #expect(policy.committedEnd == 1.4)
    }

    @Test("a sure word the decoding heard 0.3 s past is settled without the next decoding")
    func settled() {
        var policy = LocalAgreement()
        // Ends 0.4, 0.9, 1.4, 1.9 s, heard through 2.0 s: the first three had 0.3 s or more after them.
        #expect(policy.agree(with: Self.words("the cat sat on"), heardThrough: 2).map(\.word) == [" the", " cat", " sat"])
        #expect(policy.pending.map(\.word) == [" on"])
        // After the agreed prefix too; an unsure word stops the run, whatever follows it.
        var words = Self.words("on the mat by the door")
        words[2].probability = 0.6
        #expect(policy.agree(with: words, heardThrough: 4).map(\.word) == [" on", " the"])
        #expect(policy.pending.map(\.word) == [" mat", " by", " the", " door"])
    }

    @Test("a re-decoding's words before the commit, and a re-heard tail of it, are not fresh")
    func fresh() {
        var policy = LocalAgreement()
        _ = policy.commit(Self.words("ask not what your country"), from: 0)
        #expect(policy.committedEnd == 2.4)
        let again = Self.words("your country can do", from: 2.0)
        #expect(policy.fresh(again).map(\.word) == [" can", " do"])
        let late = Self.words("for you", from: 5)
        #expect(policy.fresh(late).map(\.word) == [" for", " you"])
    }

    @Test("after the last committed word heard again, words are fresh wherever the alignment put them")
    func anchor() {
        var policy = LocalAgreement()
        _ = policy.commit(Self.words("his daily bread."), from: 0)
        _ = policy.trimmedWords()
        // Heard again with the audio before the window: "And" aligned 0.2 s before the commit's end is new.
        let again = [Word(start: 0, end: 0.4, word: " his", probability: 0.9),
                     Word(start: 0.5, end: 0.9, word: " daily", probability: 0.9),
                     Word(start: 1.0, end: 1.3, word: " bread,", probability: 0.9),
                     Word(start: 1.2, end: 1.5, word: " and", probability: 0.9),
                     Word(start: 1.5, end: 1.9, word: " you", probability: 0.9)]
        #expect(policy.fresh(again).map(\.word) == [" and", " you"])
        // Without the anchor (the last word heard otherwise), the commit's time decides.
        var other = again
        other[2].word = " bred"
        #expect(policy.fresh(other).map(\.word) == [" you"])
    }

    @Test("committed words leave the window after a sentence or 15 s, and become text")
    func trimming() {
        var policy = LocalAgreement()
        _ = policy.commit(Self.words("hello there"), from: 0)
        #expect(!policy.shouldTrim(windowSeconds: 3))
        #expect(policy.shouldTrim(windowSeconds: 16))
        _ = policy.commit(Self.words("friend.", from: 1), from: 0)
        #expect(policy.shouldTrim(windowSeconds: 3))
        #expect(policy.trimmedWords().map(\.word).joined() == " hello there friend.")
        #expect(policy.windowWords.isEmpty)
    }
}
