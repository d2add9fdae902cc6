/// Speech a window's text steps over. Now and then Whisper ends a segment and starts the next one after a sentence it
/// never wrote, or stops early in a window whose seek then jumps to the window's end; the sentence is lost. Where a
/// voice activity detector has marked the speech, the step shows: a gap between two segments (or two words of one),
/// or after the last one when the seek jumps to the window's end, that holds `minimumSpeech` or more of detected
/// speech. The window's text is then cut before the gap and the next window starts at it, so the sentence is decoded
/// again with the text before it as prompt.
///
/// The gap before a window's first segment cannot be cut (the window starts there): `stepsOverStart` tells the caller
/// to decode the window again without the previous text; a sentence skipped then too is left out, so the seek always
/// moves on. A pure function of the segments' times
/// and the speech, in 16 kHz stream samples and 10 ms frames.
public struct SkippedSpeech {
    /// Detected speech (16 kHz samples) a gap must hold to count as stepped over: a second, well above the slack
    /// between a segment's timestamps and the detector's padded regions.
    static let minimumSpeech = 16_000

    /// Where to cut the window, if it stepped over speech: the number of segments kept and the frame the next window
    /// starts at (the end of the last kept segment).
    /// - Parameters:
    ///   - segments: the window's segments' start and end, in seconds of the stream, in order (from their words'
    ///     times where the window has them: a segment's timestamps can span a sentence its text leaves out).
    ///   - windowStart: the window's first frame; `windowEnd` its end (frames).
    ///   - nextSeek: the frame the seek goes to without the check.
    ///   - speech: the detected speech (samples) within a range of stream samples.
    ///   - words: each segment's words' start and end, when known: a gap between two words of a segment can hold a
    ///     stepped-over sentence too (the segment's timestamps span it); the window is then cut before that segment.
    static func cut(segments: [(start: Double, end: Double)], words: [[(start: Double, end: Double)]]? = nil,
                    windowStart: Int, windowEnd: Int, nextSeek: Int,
                    speech: (Range<Int>) -> Int) -> (kept: Int, seek: Int)? {
        func frame(_ seconds: Double) -> Int { Int((seconds * 100).rounded(.toNearestOrEven)) }
        for index in segments.indices.dropFirst()
        where steppedOver(sample(segments[index - 1].end), sample(segments[index].start), speech: speech)
            || words.map({ stepsOverInside($0[index], speech: speech) }) == true {
            let seek = frame(segments[index - 1].end)
            if seek > windowStart { return (index, seek) }
        }
        if nextSeek >= windowEnd, let last = segments.last, steppedOver(sample(last.end), windowEnd * 160, speech: speech) {
            let seek = frame(last.end)
            if seek > windowStart && seek < nextSeek { return (segments.count, seek) }
        }
        return nil
    }

    /// Where one decoding of a window that is not part of a long-form stream (volatile transcription's) stepped over
    /// speech, as `cut` finds it with the window taken as wholly heard: how many of `segments` to keep and where (stream
    /// seconds) the rest of the window is to be decoded again from; nil if it did not. `segments` carry word times.
    /// `speech` counts the detected speech in a range of stream samples.
    public static func resumption(after segments: [Segment], windowStart: Double, windowEnd: Double,
                                  speech: (Range<Int>) -> Int) -> (kept: Int, seconds: Double)? {
        let (times, words) = heard(segments: segments.map { ($0.start, $0.end, $0.words ?? []) })
        let start = Int((windowStart * 100).rounded(.down)), end = Int((windowEnd * 100).rounded(.down))
        guard let cut = cut(segments: times, words: words, windowStart: start, windowEnd: end, nextSeek: end,
                            speech: speech)
        else { return nil }
        return (cut.kept, Double(cut.seek) / 100)
    }

    /// Whether the window's text starts after `minimumSpeech` or more of detected speech (or has no segment in a window
    /// holding that much): the gap `cut` leaves alone. The previous text as prompt is what most often makes the decoder
    /// jump there; the caller decodes the window again without it.
    /// So does a first segment with a stepped-over gap between its words (`words` as in `cut`).
    static func stepsOverStart(segments: [(start: Double, end: Double)], words: [[(start: Double, end: Double)]]? = nil,
                               windowStart: Int, windowEnd: Int, speech: (Range<Int>) -> Int) -> Bool {
        if let first = words?.first, stepsOverInside(first, speech: speech) { return true }
        let upper = segments.first.map { sample($0.start) } ?? windowEnd * 160
        return steppedOver(windowStart * 160, upper, speech: speech)
    }

    /// The longest a word of `text` is heard, in seconds: 0.3 s and a tenth of a second per letter, slow speech's pace.
    /// The alignment can stretch a word over speech the text leaves out (a lone "a" over a 2.6 s sentence never
    /// written); a word counts as heard for this long at most.
    static func longestDuration(of text: String) -> Double { 0.3 + 0.1 * Double(text.count { $0.isLetter || $0.isNumber }) }

    /// Where each word is heard, each for at most `longestDuration`: what `cut` and `stepsOverStart` take as `words`.
    static func heard(_ words: [Word]) -> [(start: Double, end: Double)] {
        words.map { (start: $0.start, end: min($0.end, $0.start + longestDuration(of: $0.word))) }
    }

    /// Segments (timestamps and words) as heard, what `cut` and `stepsOverStart` take: each from its first heard
    /// word's start to its last's end (its timestamps when it has no words), and its words as `heard` gives them.
    static func heard(segments: [(start: Double, end: Double, words: [Word])])
        -> (segments: [(start: Double, end: Double)], words: [[(start: Double, end: Double)]]) {
        let words = segments.map { heard($0.words) }
        let times = zip(segments, words).map { segment, words in
            words.first.map { (start: $0.start, end: words.last!.end) } ?? (segment.start, segment.end)
        }
        return (times, words)
    }

    /// Whether `minimumSpeech` or more of detected speech lies between two consecutive words of a segment.
    static func stepsOverInside(_ words: [(start: Double, end: Double)], speech: (Range<Int>) -> Int) -> Bool {
        zip(words, words.dropFirst()).contains { steppedOver(sample($0.end), sample($1.start), speech: speech) }
    }

    private static func steppedOver(_ lower: Int, _ upper: Int, speech: (Range<Int>) -> Int) -> Bool {
        upper - lower >= minimumSpeech && speech(lower..<upper) >= minimumSpeech
    }

    private static func sample(_ seconds: Double) -> Int { Int((seconds * 16_000).rounded()) }
}
