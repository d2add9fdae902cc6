/// Where the segmentation model listens for overlapping speech: the first samples of its 10 s windows
/// (`SpeakerSegmentationModel.windowSamples`) in a recording. A pure value: no model needed.
package enum OverlapWindows: Sendable, Equatable {
    /// The whole recording, a window every `step` samples, the last one ending with the recording.
    case everywhere(step: Int)
    /// One window centred on each speaker change the clustering found (turns of different speakers at most
    /// `maximumGap` seconds apart): overlaps in conversation are a reply that starts early or a speaker who goes on.
    /// A change within a quarter window of the last window's centre is left to that window.
    case atChanges(maximumGap: Double)

    package static let window = SpeakerSegmentationModel.windowSamples

    /// The windows' first samples, ascending, for a recording of `samples` whose turns are `turns` (seconds, 16 kHz);
    /// each window lies inside the recording unless the recording is shorter than one (then one window, from 0).
    package func starts(turns: [SpeakerTurn], samples: Int) -> [Int] {
        guard samples > 0 else { return [] }
        let last = Swift.max(0, samples - Self.window)
        switch self {
        case .everywhere(let step):
            var starts = Array(stride(from: 0, through: last, by: Swift.max(1, step)))
            if starts.last != last { starts.append(last) }
            return starts
        case .atChanges(let maximumGap):
            let rate = Double(VoiceActivityDetection.sampleRate)
            let sorted = turns.filter { $0.start.isFinite && $0.end.isFinite && $0.end > $0.start }
                .sorted { ($0.start, $0.end) < ($1.start, $1.end) }
            var starts: [Int] = []
            var lastCentre: Int?
            for (before, after) in zip(sorted, sorted.dropFirst())
            where before.speaker != after.speaker && after.start - before.end <= maximumGap {
                let centre = Int(((before.end + after.start) / 2 * rate).rounded())
                if let lastCentre, centre - lastCentre < Self.window / 4 { continue }
                lastCentre = centre
                let start = Swift.min(last, Swift.max(0, centre - Self.window / 2))
                if starts.last != start { starts.append(start) }
            }
            return starts
        }
    }
}
