/// Speech a window's text steps over. Now and then Whisper ends a segment and starts the next one after a sentence it
/// never wrote, or stops early in a window whose seek then jumps to the window's end; the sentence is lost. Where a
/// voice activity detector has marked the speech, the step shows: a gap between two segments, or after the last one
/// when the seek jumps to the window's end, that holds `minimumSpeech` or more of detected speech. The window's text is
/// then cut before the gap and the next window starts at it, so the sentence is decoded again with the text before it
/// as prompt.
///
/// The gap before a window's first segment cannot be cut (the window starts there): `stepsOverStart` tells the caller
/// to decode the window again without the previous text; a sentence skipped then too is left out, so the seek always
/// moves on. A pure function of the segments' times
/// and the speech, in 16 kHz stream samples and 10 ms frames.
struct SkippedSpeech {
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
    static func cut(segments: [(start: Double, end: Double)], windowStart: Int, windowEnd: Int, nextSeek: Int,
                    speech: (Range<Int>) -> Int) -> (kept: Int, seek: Int)? {
        func sample(_ seconds: Double) -> Int { Int((seconds * 16_000).rounded()) }
        func frame(_ seconds: Double) -> Int { Int((seconds * 100).rounded(.toNearestOrEven)) }
        func steppedOver(_ lower: Int, _ upper: Int) -> Bool {
            upper - lower >= minimumSpeech && speech(lower..<upper) >= minimumSpeech
        }
        for index in segments.indices.dropFirst()
        where steppedOver(sample(segments[index - 1].end), sample(segments[index].start)) {
            let seek = frame(segments[index - 1].end)
            if seek > windowStart { return (index, seek) }
        }
        if nextSeek >= windowEnd, let last = segments.last, steppedOver(sample(last.end), windowEnd * 160) {
            let seek = frame(last.end)
            if seek > windowStart && seek < nextSeek { return (segments.count, seek) }
        }
        return nil
    }

    /// Whether the window's text starts after `minimumSpeech` or more of detected speech (or has no segment in a window
    /// holding that much): the gap `cut` leaves alone. The previous text as prompt is what most often makes the decoder
    /// jump there; the caller decodes the window again without it.
    static func stepsOverStart(segments: [(start: Double, end: Double)], windowStart: Int, windowEnd: Int,
                               speech: (Range<Int>) -> Int) -> Bool {
        let lower = windowStart * 160
        let upper = segments.first.map { Int(($0.start * 16_000).rounded()) } ?? windowEnd * 160
        return upper - lower >= minimumSpeech && speech(lower..<upper) >= minimumSpeech
    }
}
