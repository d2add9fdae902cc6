import SpeechEngine

/// What keeps a transcriber from transcribing silence when a `SpeechDetector` shares its analyzer: the
/// volatile transcriber reads the detector's speech regions (`SpeechRegionLog`; it runs no detection of its own), gives
/// the model only the speech (other audio is muted), and drops words heard outside it. Final-only transcription
/// chooses the speech with `SpeechSpanSelection` instead.
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

    /// The detector's speech in `range` (its regions without the gate's margin, the speech in progress through the
    /// range's end), in samples.
    func speechSamples(in range: Range<Int64>) -> Int {
        let known = regions.snapshot(overlapping: range, margin: 0)
        let spans = known.regions + (known.openStart.map { [$0..<Int64.max] } ?? [])
        return spans.reduce(0) { $0 + Int(max(0, min($1.upperBound, range.upperBound) - max($1.lowerBound, range.lowerBound))) }
    }

    /// The words heard in speech (times in timeline seconds).
    func keep(_ words: [Word]) -> [Word] {
        words.filter { isSpeech(from: $0.start, to: $0.end) }
    }
}
