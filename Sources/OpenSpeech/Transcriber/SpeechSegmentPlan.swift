/// How final-only transcription beside a `SpeechDetector` splits long audio into what the engine transcribes:
/// segments of at most 30 s (Whisper's window) that hold the detector's speech and as little else as possible.
///
/// Speech spans (the detector's regions widened by the gate's margins, about faster-whisper's 0.4 s speech pad) are
/// joined into one segment across silences shorter than `separatingSilence`, as faster-whisper's VAD options join
/// speech across silences shorter than its `min_silence_duration_ms`; a longer silence always ends a segment, so the
/// engine never hears it. A run of speech that does not fit in 30 s is cut in the longest of its silences that keeps
/// the segment within 30 s; a single span longer than that, at its quietest 32 ms in the second half of the
/// segment. Positions are 16 kHz timeline samples.
///
/// Segments do not depend on each other: they are what a batched engine would run through the encoder together.
enum SpeechSegmentPlan {
    /// Whisper's window: no segment is longer.
    static let maximumLength: Int64 = 30 * 16_000
    /// A silence at least this long between two speech spans always separates their segments.
    static let separatingSilence: Int64 = 2 * 16_000
    /// Samples per frame when looking for the quietest moment of a long span.
    static let frame = 512

    /// The segments to transcribe, in time order, for the speech spans `speech` of the audio `samples` (whose first
    /// element is timeline sample `start`). Spans may overlap and are clipped to the audio.
    static func segments(speech: [Range<Int64>], samples: ArraySlice<Float>, start: Int64) -> [Range<Int64>] {
        var spans = merged(speech.map { $0.clamped(to: start..<(start + Int64(samples.count))) })
        var segments: [Range<Int64>] = []
        var first = 0
        while first < spans.count {
            let from = spans[first].lowerBound
            if spans[first].upperBound - from > maximumLength {
                // Speech without a pause for 30 s: cut it where it is quietest.
                let cut = quietest(in: (from + maximumLength / 2)..<(from + maximumLength), of: samples, start: start)
                segments.append(from..<cut)
                spans[first] = cut..<spans[first].upperBound
                continue
            }
            // The spans joined to the first by short silences that end within 30 s of its start.
            var last = first
            while last + 1 < spans.count, gap(after: last, in: spans) < separatingSilence,
                  spans[last + 1].upperBound - from <= maximumLength {
                last += 1
            }
            var cutAfter = last
            if last + 1 < spans.count, gap(after: last, in: spans) < separatingSilence {
                // The next span is joined but does not fit: cut in the longest silence (the latest of equals).
                for index in (first..<last).reversed() where gap(after: index, in: spans) > gap(after: cutAfter, in: spans) {
                    cutAfter = index
                }
            }
            segments.append(from..<spans[cutAfter].upperBound)
            first = cutAfter + 1
        }
        return segments
    }

    /// The silence between span `index` and the next.
    private static func gap(after index: Int, in spans: [Range<Int64>]) -> Int64 {
        spans[index + 1].lowerBound - spans[index].upperBound
    }

    /// Non-empty spans sorted, overlapping and touching ones joined.
    static func merged(_ spans: [Range<Int64>]) -> [Range<Int64>] {
        var result: [Range<Int64>] = []
        for span in spans.filter({ !$0.isEmpty }).sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = result.last, span.lowerBound <= last.upperBound {
                result[result.count - 1] = last.lowerBound..<max(last.upperBound, span.upperBound)
            } else {
                result.append(span)
            }
        }
        return result
    }

    /// The middle of the quietest whole frame in `range` (the latest of equals); `range.upperBound` if none fits.
    static func quietest(in range: Range<Int64>, of samples: ArraySlice<Float>, start: Int64) -> Int64 {
        var best = range.upperBound, bestEnergy = Float.infinity
        var position = range.lowerBound
        while position + Int64(frame) <= range.upperBound {
            let lower = samples.startIndex + Int(position - start)
            let energy = samples[lower..<(lower + frame)].reduce(0) { $0 + $1 * $1 }
            if energy <= bestEnergy {
                best = position + Int64(frame / 2)
                bestEnergy = energy
            }
            position += Int64(frame)
        }
        return best
    }
}
