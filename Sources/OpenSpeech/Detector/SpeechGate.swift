import SpeechEngine

/// What keeps a transcriber from transcribing silence when a `SpeechDetector` shares its analyzer: the
/// transcriber reads the detector's speech regions (`SpeechRegionLog`; it runs no detection of its own), gives the
/// model only the speech (other audio is muted, or not given at all in final-only mode), and drops text heard
/// outside it.
///
/// Speech keeps `margin` of audio on each side (the detector's regions are tight; words trail off). Audio from
/// before the detector's first sample counts as speech (the detector joined late: nothing is known about it); audio
/// it has not received yet counts as silence unless speech is in progress.
final class SpeechGate {
    /// Seconds of audio kept around each speech region (on top of the detector's own 30 ms padding: about the
    /// 0.4 s faster-whisper pads its VAD's speech with).
    static let margin = 0.3

    /// The detector's regions.
    let regions: SpeechRegionLog
    private let marginSamples = SpeechRegionTracker.samples(SpeechGate.margin)

    init(regions: SpeechRegionLog) {
        self.regions = regions
    }

    /// The speech (with margins) overlapping `range`, clipped to it, in timeline samples.
    func speech(in range: Range<Int64>) -> [Range<Int64>] {
        let known = regions.snapshot(overlapping: range, margin: marginSamples)
        var spans: [Range<Int64>] = []
        if let start = known.start, range.lowerBound < start { spans.append(Int64.min..<start) }
        if known.start == nil { spans.append(Int64.min..<Int64.max) }
        spans += known.regions.map { ($0.lowerBound - marginSamples)..<($0.upperBound + marginSamples) }
        if let open = known.openStart { spans.append((open - marginSamples)..<Int64.max) }
        return spans.compactMap { span in
            let clipped = span.clamped(to: range)
            return clipped.isEmpty ? nil : clipped
        }
    }

    /// `samples` (from timeline sample `start`) with everything outside speech set to zero; nil if none is speech.
    func gated(_ samples: [Float], from start: Int64) -> [Float]? {
        let spans = speech(in: start..<(start + Int64(samples.count)))
        guard !spans.isEmpty else { return nil }
        var result = [Float](repeating: 0, count: samples.count)
        for span in spans {
            let lower = Int(span.lowerBound - start), upper = Int(span.upperBound - start)
            result[lower..<upper] = samples[lower..<upper]
        }
        return result
    }

    /// Whether the audio from `start` to `end` seconds overlaps speech.
    func isSpeech(from start: Double, to end: Double) -> Bool {
        let lower = Int64((start * 16_000).rounded(.down)), upper = Int64((end * 16_000).rounded(.up))
        return !speech(in: lower..<max(upper, lower + 1)).isEmpty
    }

    /// The words heard in speech (times in timeline seconds).
    func keep(_ words: [Word]) -> [Word] {
        words.filter { isSpeech(from: $0.start, to: $0.end) }
    }

    /// `segment` (times in seconds after `offset`) without its words heard outside speech, its times narrowed
    /// to the speech it overlaps (Whisper stretches a segment over the muted audio before it); nil if nothing is left.
    func keep(_ segment: Segment, offset: Double) -> Segment? {
        let lower = Int64(((offset + segment.start) * 16_000).rounded(.down))
        let upper = max(Int64(((offset + segment.end) * 16_000).rounded(.up)), lower + 1)
        let spans = speech(in: lower..<upper)
        guard let first = spans.first, let last = spans.last else { return nil }
        var trimmed = segment
        trimmed.start = max(segment.start, Double(first.lowerBound) / 16_000 - offset)
        trimmed.end = min(segment.end, Double(last.upperBound) / 16_000 - offset)
        guard let words = segment.words else { return trimmed }
        let kept = words.filter { isSpeech(from: offset + $0.start, to: offset + $0.end) }
        guard !kept.isEmpty else { return nil }
        if kept.count < words.count {
            trimmed.words = kept
            trimmed.text = kept.map(\.word).joined()
        }
        trimmed.start = max(trimmed.start, min(kept.first!.start, trimmed.end))
        trimmed.end = max(min(trimmed.end, max(kept.last!.end, trimmed.start)), trimmed.start)
        return trimmed
    }
}
