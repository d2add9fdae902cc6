import Foundation

/// A moment in an audio stream, as in AVFoundation: a sample time (frames at `sampleRate` since the stream began)
/// and a host time (the machine's clock), either or both valid.
///
/// Host time on Linux is `CLOCK_MONOTONIC` in nanoseconds (Apple's is `mach_absolute_time` ticks): convert with
/// `seconds(forHostTime:)` and `hostTime(forSeconds:)`, never by assuming a unit. There is no `AudioTimeStamp`.
public final class AVAudioTime: Sendable, CustomStringConvertible {
    /// The host clock time, in nanoseconds of `CLOCK_MONOTONIC` on Linux (Apple's uses Mach ticks).
    public let hostTime: UInt64
    /// Whether `hostTime` holds a time.
    public let isHostTimeValid: Bool
    /// The position in frames at `sampleRate` since the stream began.
    public let sampleTime: AVAudioFramePosition
    /// Whether `sampleTime` holds a time.
    public let isSampleTimeValid: Bool
    /// The rate of `sampleTime`; 0 when the sample time is not valid.
    public let sampleRate: Double

    /// A time with only a host time.
    public init(hostTime: UInt64) {
        self.hostTime = hostTime
        isHostTimeValid = true
        sampleTime = 0
        isSampleTimeValid = false
        sampleRate = 0
    }

    /// A time with only a sample time, in frames at `sampleRate`.
    public init(sampleTime: AVAudioFramePosition, atRate sampleRate: Double) {
        hostTime = 0
        isHostTimeValid = false
        self.sampleTime = sampleTime
        isSampleTimeValid = true
        self.sampleRate = sampleRate
    }

    /// A time with both a host time and a sample time.
    public init(hostTime: UInt64, sampleTime: AVAudioFramePosition, atRate sampleRate: Double) {
        self.hostTime = hostTime
        isHostTimeValid = true
        self.sampleTime = sampleTime
        isSampleTimeValid = true
        self.sampleRate = sampleRate
    }

    /// This time with what it lacks computed from `anchor`, a time with both host and sample times; nil when the
    /// anchor lacks either or this time has neither. The sample time is expressed at this time's rate if it has
    /// one, else at the anchor's.
    public func extrapolateTime(fromAnchor anchor: AVAudioTime) -> AVAudioTime? {
        guard anchor.isHostTimeValid, anchor.isSampleTimeValid, anchor.sampleRate > 0 else { return nil }
        let rate = sampleRate > 0 ? sampleRate : anchor.sampleRate
        switch (isHostTimeValid, isSampleTimeValid) {
        case (true, true):
            return self
        case (false, true):
            let seconds = Double(sampleTime) / rate - Double(anchor.sampleTime) / anchor.sampleRate
            let host = Int64(anchor.hostTime) + Int64((seconds * 1e9).rounded())
            return AVAudioTime(hostTime: UInt64(max(0, host)), sampleTime: sampleTime, atRate: rate)
        case (true, false):
            let seconds = (Double(hostTime) - Double(anchor.hostTime)) / 1e9
            let frames = (Double(anchor.sampleTime) / anchor.sampleRate + seconds) * rate
            return AVAudioTime(hostTime: hostTime, sampleTime: AVAudioFramePosition(frames.rounded()), atRate: rate)
        case (false, false):
            return nil
        }
    }

    /// The host time `seconds` from the clock's origin.
    public static func hostTime(forSeconds seconds: TimeInterval) -> UInt64 {
        seconds <= 0 ? 0 : UInt64((seconds * 1e9).rounded())
    }

    /// Seconds from the clock's origin to `hostTime`.
    public static func seconds(forHostTime hostTime: UInt64) -> TimeInterval { Double(hostTime) / 1e9 }

    /// The host time now (not in Apple's API, where `mach_absolute_time()` gives it).
    public static func now() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }

    /// The host and sample times, or which of them is missing, for debugging.
    public var description: String {
        let host = isHostTimeValid ? "host \(hostTime)" : "no host time"
        let sample = isSampleTimeValid ? "sample \(sampleTime) at \(sampleRate) Hz" : "no sample time"
        return "AVAudioTime(\(host), \(sample))"
    }
}
