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
