/// How much of a detection window the encoder hears: the window's own audio and a little of Whisper's padding, not
/// the whole 30 s. Whisper pads every window to 30 s and faster-whisper encodes it all; the language token needs only
/// the speech, and encoding a 5 s window's 250 positions instead of 1,500 does about a tenth of the work (attention
/// grows with the square of the length). A pure function of the window's length.
struct DetectionEncoding: Sendable, Equatable {
    /// Encoder positions (20 ms each) of padding kept after the audio.
    var paddingPositions = 50

    /// Encoder positions per second (the mel's 100 frames per second, halved by the encoder's stride).
    static let positionsPerSecond = 50
    /// Positions of a 30 s window: the encoder's whole context.
    static let fullPositions = 1_500

    /// The positions to encode for a window of `samples` samples at 16 kHz.
    func positions(forSamples samples: Int) -> Int {
        let audio = (samples + 319) / 320
        return min(Self.fullPositions, max(1, audio + paddingPositions))
    }
}
