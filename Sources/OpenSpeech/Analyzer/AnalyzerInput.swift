import SpeechAudio

/// A buffer of audio for an analyzer, optionally placed on its timeline, as in Apple's Speech.
public struct AnalyzerInput: Sendable {
    public let buffer: AVAudioPCMBuffer
    /// Where the buffer starts on the analyzer's timeline; nil means right after the previous buffer.
    /// A later time skips the audio in between; an earlier one is `SFSpeechError.Code.audioDisordered`.
    public let bufferStartTime: CMTime?

    public init(buffer: AVAudioPCMBuffer) {
        self.buffer = buffer
        self.bufferStartTime = nil
    }

    public init(buffer: AVAudioPCMBuffer, bufferStartTime: CMTime?) {
        self.buffer = buffer
        self.bufferStartTime = bufferStartTime
    }
}
