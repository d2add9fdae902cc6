import SpeechAudio

/// A buffer of audio for an analyzer, optionally placed on its timeline, as in Apple's Speech.
public struct AnalyzerInput: Sendable {
    /// The audio samples; the analyzer converts them to its modules' format.
    public let buffer: AVAudioPCMBuffer
    /// Where the buffer starts on the analyzer's timeline; nil means right after the previous buffer.
    /// A later time skips the audio in between; an earlier one is `SFSpeechError.Code.audioDisordered`.
    public let bufferStartTime: CMTime?

    /// Input that follows the previous buffer on the analyzer's timeline.
    public init(buffer: AVAudioPCMBuffer) {
        self.buffer = buffer
        self.bufferStartTime = nil
    }

    /// Input placed at `bufferStartTime` on the analyzer's timeline (nil: right after the previous buffer).
    public init(buffer: AVAudioPCMBuffer, bufferStartTime: CMTime?) {
        self.buffer = buffer
        self.bufferStartTime = bufferStartTime
    }

    /// The length of the audio (macOS/iOS 27), at the buffer's sample rate.
    public var bufferDuration: CMTime {
        let rate = buffer.format.sampleRate
        guard rate > 0 else { return .zero }
        if rate == rate.rounded(), rate <= Double(CMTimeScale.max) {
            return CMTime(value: CMTimeValue(buffer.frameLength), timescale: CMTimeScale(rate))
        }
        return CMTime(seconds: Double(buffer.frameLength) / rate, preferredTimescale: 1_000_000_000)
    }

    /// The format of the audio (macOS/iOS 27).
    public var bufferFormat: AVAudioFormat { buffer.format }
}
