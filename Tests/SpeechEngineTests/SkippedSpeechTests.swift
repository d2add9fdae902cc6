import Testing
@testable import SpeechEngine

/// Speech a window's text steps over, as a detector's regions show it (stream samples at 16 kHz, frames of 10 ms).
@Suite("Skipped speech")
struct SkippedSpeechTests {
    /// Speech from 2 s to 12 s and from 14 s to 20 s of a window starting at 0.
    static func speech(_ range: Range<Int>) -> Int {
        [32_000..<192_000, 224_000..<320_000].reduce(0) {
            $0 + max(0, min($1.upperBound, range.upperBound) - max($1.lowerBound, range.lowerBound))
        }
    }

    @Test("a gap between segments holding a second or more of speech cuts the window at the segment before it")
    func gapBetweenSegments() throws {
        // Text for 2–5 s, nothing for 5–9 s (speech), text again from 9 s.
        let cut = try #require(SkippedSpeech.cut(segments: [(2, 5), (9, 12), (14, 20)], windowStart: 0, windowEnd: 3000,
                                                 nextSeek: 2000, speech: Self.speech))
        #expect(cut.kept == 1)
        #expect(cut.seek == 500)
    }

    @Test("a single decoding (volatile) that stopped before speech resumes after its last word, from its words' times")
    func resumption() throws {
        // A word every half second.
        func segment(_ start: Double, _ end: Double) -> Segment {
            let words = stride(from: start, to: end, by: 0.5).map {
                Word(start: $0, end: min($0 + 0.5, end), word: " word", probability: 0.9)
            }
            return Segment(id: 1, seek: 0, start: start, end: end, text: " words", tokens: [], avgLogProb: -0.2,
                           compressionRatio: 1, noSpeechProb: 0, temperature: 0, words: words)
        }
        // Text through 12 s; the speech from 14 s to 20 s has none.
        let resume = try #require(SkippedSpeech.resumption(after: [segment(2, 2.5), segment(2.5, 12)], windowStart: 0,
                                                           windowEnd: 25, speech: Self.speech))
        #expect(resume.kept == 2)
        #expect(resume.seconds == 12)
        // Text through the last speech: nothing left out.
        #expect(SkippedSpeech.resumption(after: [segment(2, 12), segment(14, 20)], windowStart: 0, windowEnd: 25,
                                         speech: Self.speech) == nil)
    }

    @Test("gaps over silence, or with less than a second of speech, are left alone")
    func silenceAndSlack() {
        // 12–14 s is silence; 5.0–5.5 s is half a second of speech (a segment ending early).
        #expect(SkippedSpeech.cut(segments: [(2, 12), (14, 20)], windowStart: 0, windowEnd: 3000, nextSeek: 2000,
                                  speech: Self.speech) == nil)
        #expect(SkippedSpeech.cut(segments: [(2, 5), (5.5, 12), (14, 20)], windowStart: 0, windowEnd: 3000,
                                  nextSeek: 2000, speech: Self.speech) == nil)
    }

    @Test("a window whose seek jumps to its end over untranscribed speech is cut after its last segment")
    func trailingSpeech() throws {
        // The text ends at 12 s, the speech from 14 s to 20 s has none, and the seek goes to the window's end.
        let cut = try #require(SkippedSpeech.cut(segments: [(2, 12)], windowStart: 0, windowEnd: 3000, nextSeek: 3000,
                                                 speech: Self.speech))
        #expect(cut.kept == 1)
        #expect(cut.seek == 1200)
        // When the seek stops at the last timestamp, the next window starts there anyway: nothing to cut.
        #expect(SkippedSpeech.cut(segments: [(2, 12)], windowStart: 0, windowEnd: 3000, nextSeek: 1200,
                                  speech: Self.speech) == nil)
    }

    @Test("the gap before the first segment is never cut (the seek must move on); it asks for a second decoding")
    func leadingGap() {
        #expect(SkippedSpeech.cut(segments: [(9, 12)], windowStart: 0, windowEnd: 3000, nextSeek: 1200,
                                  speech: Self.speech) == nil)
        #expect(SkippedSpeech.stepsOverStart(segments: [(9, 12)], windowStart: 0, windowEnd: 3000, speech: Self.speech))
        #expect(!SkippedSpeech.stepsOverStart(segments: [(2.5, 12)], windowStart: 0, windowEnd: 3000, speech: Self.speech))
        // No text at all in a window holding speech.
        #expect(SkippedSpeech.stepsOverStart(segments: [], windowStart: 0, windowEnd: 3000, speech: Self.speech))
        #expect(!SkippedSpeech.stepsOverStart(segments: [], windowStart: 0, windowEnd: 3000, speech: { _ in 0 }))
    }

    @Test("a gap between two words of one segment over a second of speech cuts before that segment, or retries the first")
    func gapInsideSegment() throws {
        // Segment 2 (9–20 s) has text at 9–10 s and 18–20 s: 8 s of speech between its words has none.
        let words: [[(start: Double, end: Double)]] = [[(2, 3), (3, 5)], [(9, 10), (18, 20)]]
        let cut = try #require(SkippedSpeech.cut(segments: [(2, 5), (9, 20)], words: words, windowStart: 0,
                                                 windowEnd: 3000, nextSeek: 2000, speech: Self.speech))
        #expect(cut.kept == 1)
        #expect(cut.seek == 500)
        // The same segment first in its window: decode the window again without the previous text.
        #expect(SkippedSpeech.stepsOverStart(segments: [(9, 20)], words: [[(9, 10), (18, 20)]], windowStart: 900,
                                             windowEnd: 3900, speech: Self.speech))
        // Words close together (half a second of speech between them) are left alone.
        #expect(SkippedSpeech.cut(segments: [(2, 5), (5.2, 12)], words: [[(2, 3), (3.5, 5)], [(5.2, 10), (10.5, 12)]],
                                  windowStart: 0, windowEnd: 3000, nextSeek: 1200, speech: Self.speech) == nil)
    }

    @Test("a word counts as heard for a bounded time: a lone 'a' stretched over a sentence leaves the sentence a gap")
    func stretchedWord() {
        #expect(abs(SkippedSpeech.longestDuration(of: " a") - 0.4) < 1e-9)
        #expect(abs(SkippedSpeech.longestDuration(of: " extraordinarily,") - 1.8) < 1e-9)
        // "used," at 2–5 s, then "a" aligned over 5–9.5 s (speech all along): heard through 5.4 s only.
        let a = (start: 5.0, end: min(9.5, 5.0 + SkippedSpeech.longestDuration(of: " a")))
        #expect(SkippedSpeech.stepsOverInside([(2, 5), a, (9.5, 10)], speech: Self.speech))
        #expect(!SkippedSpeech.stepsOverInside([(2, 5), (5, 9.5), (9.5, 10)], speech: Self.speech))
    }

    @Test("a cut always moves the seek past the window's start")
    func progress() {
        // A zero-length first segment at the window's start, then a gap over speech: no cut at the start itself.
        #expect(SkippedSpeech.cut(segments: [(0, 0), (9, 12)], windowStart: 0, windowEnd: 3000, nextSeek: 1200,
                                  speech: { $0.count }) == nil)
    }
}
