import SpeechAudio

/// Where buffers given to an `AnalyzerInputConverter` sit on the analyzer's timeline: each follows the previous one
/// unless its time says it starts elsewhere. A pure value, tested without audio.
///
/// The timeline starts at zero (Apple: a buffer without a time "is assumed to start immediately after the previous
/// buffer (or at time-code zero if there is no previous buffer)"). A sample time places a buffer at
/// `sampleTime / sampleRate` seconds. A host time alone (as some capture taps give) is read against the first host
/// time seen, which is taken to fall where the audio had reached; host clocks jitter, so host-timed buffers within
/// `hostTolerance` of the expected start count as contiguous.
struct InputTimeline {
    /// Where a buffer goes.
    enum Placement: Equatable {
        /// Right after the previous buffer (or at zero for the first).
        case contiguous
        /// At this many seconds: audio was skipped (or, if earlier than the previous buffer's end, overlaps it,
        /// which the analyzer refuses as `audioDisordered`).
        case startsAt(Double)
    }

    /// Gaps between host-timed buffers smaller than this are clock jitter, not skipped audio.
    static let hostTolerance = 0.005

    /// Seconds of timeline the buffers so far reach.
    private(set) var end = 0.0
    /// The first host time seen and the timeline position it was taken to mark.
    private var hostAnchor: (host: UInt64, seconds: Double)?

    /// Places a buffer of `frames` frames at `sampleRate` that starts at `time` (nil: after the previous buffer).
    mutating func place(_ time: AVAudioTime?, frames: AVAudioFrameCount, sampleRate: Double) -> Placement {
        let duration = sampleRate > 0 ? Double(frames) / sampleRate : 0
        var placement = Placement.contiguous
        if let time, time.isSampleTimeValid, time.sampleRate > 0 || sampleRate > 0 {
            let rate = time.sampleRate > 0 ? time.sampleRate : sampleRate
            let start = Double(time.sampleTime) / rate
            if abs(start - end) > 0.5 / rate { placement = .startsAt(start) }
        } else if let time, time.isHostTimeValid {
            if let anchor = hostAnchor {
                let start = anchor.seconds + AVAudioTime.seconds(forHostTime: time.hostTime)
                    - AVAudioTime.seconds(forHostTime: anchor.host)
                if abs(start - end) > Self.hostTolerance { placement = .startsAt(start) }
            } else {
                hostAnchor = (time.hostTime, end)
            }
        }
        if case .startsAt(let start) = placement { end = start }
        end += duration
        return placement
    }
}
