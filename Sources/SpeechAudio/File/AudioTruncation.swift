import Foundation

/// A recording cut short: its container declares more audio than its data holds (a recorder that crashed, a copy
/// interrupted). FFmpeg-based tools read such a file as far as it goes.
public struct AudioTruncation: Sendable, Equatable, CustomStringConvertible {
    /// Seconds of audio the container's header declares.
    public var declaredDuration: Double
    /// Seconds of audio actually present.
    public var presentDuration: Double

    /// A clause saying how much audio the header declares and how much is present, in seconds.
    public var description: String {
        String(format: "it is truncated: its header declares %.2f s of audio but only %.2f s is present",
               declaredDuration, presentDuration)
    }
}

extension AudioTruncation {
    /// The truncation of a stream whose container declares `declaredFrames` where `presentFrames` were read: nil
    /// unless more than half a second and more than a tenth of the declared audio is missing (a header's rounding or
    /// a short last packet is not a truncation).
    init?(declaredFrames: Int64, presentFrames: Int64, sampleRate: Double) {
        guard declaredFrames - presentFrames > Int64(sampleRate / 2), Double(presentFrames) < 0.9 * Double(declaredFrames)
        else { return nil }
        self.init(declaredDuration: Double(declaredFrames) / sampleRate, presentDuration: Double(presentFrames) / sampleRate)
    }

    /// `url`'s truncation, once `presentFrames` of its stream have been read to the end: nil when complete (or its
    /// container declares no length), the truncation when `tolerated`, else `AudioError.corruptFile` saying so.
    static func check(_ url: URL, source: AudioSourceInfo, presentFrames: Int64, tolerated: Bool) throws(AudioError)
        -> AudioTruncation? {
        guard let declared = source.declaredFrames,
              let cut = AudioTruncation(declaredFrames: declared, presentFrames: presentFrames, sampleRate: source.sampleRate)
        else { return nil }
        guard tolerated else { throw .corruptFile(url, detail: cut.description) }
        return cut
    }
}
