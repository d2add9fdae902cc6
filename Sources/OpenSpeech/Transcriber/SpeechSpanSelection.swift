/// Which audio of the timeline reaches the model in final-only transcription beside a `SpeechDetector`, decided as
/// the detector closes speech regions: each region widened by `margin` on both sides, and the silence between two
/// regions kept when it is shorter than `joiningSilence` (as faster-whisper's VAD keeps pauses shorter than its
/// `min_silence_duration_ms` inside speech). The chosen stretches are transcribed as one stream, one after the other,
/// so each carries the text before it as its prompt and short pauses keep their acoustic context.
///
/// A pure value type over 16 kHz timeline positions. What it chooses depends only on the regions (and so on the
/// audio), never on how the audio or the regions arrived: a stretch is chosen once no region still to come can
/// join it or precede it.
struct SpeechSpanSelection: Sendable, Equatable {
    /// Audio kept on each side of a region.
    let margin: Int64
    /// Silences (between widened regions) shorter than this are kept.
    let joiningGap: Int64
    /// The span being built: regions joined so far, widened; later regions may still extend it.
    private(set) var current: Range<Int64>?
    /// Everything before this timeline position has been chosen or left out: audio before it is no longer needed.
    private(set) var decidedThrough: Int64

    /// A selection starting at timeline sample `start` (no audio before it is chosen).
    /// - Parameters:
    ///   - margin: samples kept before and after each region.
    ///   - joiningSilence: a silence between two regions shorter than this (samples) stays in the audio.
    init(start: Int64, margin: Int64, joiningSilence: Int64) {
        self.margin = margin
        joiningGap = max(0, joiningSilence - 2 * margin)
        decidedThrough = start
    }

    /// Takes newly closed regions (in time order) and the detector's frontier (no region closed later starts before
    /// it); returns the audio newly chosen, in time order, never past `available` (the end of the audio received).
    mutating func update(closed regions: [Range<Int64>], frontier: Int64, available: Int64) -> [Range<Int64>] {
        var chosen: [Range<Int64>] = []
        for region in regions where !region.isEmpty {
            let span = max(region.lowerBound - margin, decidedThrough)..<max(region.upperBound + margin, decidedThrough)
            if let span0 = current, span.lowerBound - span0.upperBound < joiningGap {
                current = span0.lowerBound..<max(span0.upperBound, span.upperBound)
            } else {
                if let span0 = current { choose(span0, available: available, into: &chosen) }
                current = span
            }
        }
        if let span = current {
            choose(span, available: available, into: &chosen)
            // No region to come can join it: it is complete (once its audio has arrived).
            if frontier - margin - span.upperBound >= joiningGap && decidedThrough >= span.upperBound { current = nil }
        }
        if current == nil {
            // The next region starts at the frontier or later: the audio before its margin is left out.
            decidedThrough = max(decidedThrough, min(frontier - margin, available))
        }
        return chosen
    }

    /// The audio has ended at `end`: the span being built is complete.
    mutating func finish(end: Int64) -> [Range<Int64>] {
        var chosen: [Range<Int64>] = []
        if let span = current { choose(span, available: end, into: &chosen) }
        current = nil
        decidedThrough = max(decidedThrough, end)
        return chosen
    }

    /// Chooses the part of `span` after what was chosen before, up to `available`.
    private mutating func choose(_ span: Range<Int64>, available: Int64, into chosen: inout [Range<Int64>]) {
        let lower = max(span.lowerBound, decidedThrough), upper = min(span.upperBound, available)
        guard lower < upper else { return }
        if let last = chosen.last, last.upperBound == lower {
            chosen[chosen.count - 1] = last.lowerBound..<upper
        } else {
            chosen.append(lower..<upper)
        }
        decidedThrough = upper
    }
}
