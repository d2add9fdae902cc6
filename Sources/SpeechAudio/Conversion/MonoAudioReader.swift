import Foundation

/// Reads the first audio stream of any file FFmpeg reads as mono Float32 at one rate (16 kHz by default), piece by
/// piece, in a single decode-and-resample pass: a file is decoded once however long it is, in bounded memory.
/// Not thread-safe: one owner at a time.
public final class MonoAudioReader {
    /// The file being read.
    public let url: URL
    /// The rate of the mono Float32 samples it produces, in hertz.
    public let sampleRate: Double
    /// What the container and codec say about the stream.
    public var source: AudioSourceInfo { reader.source }
    /// The duration the container declares, in seconds, if it declares one (the decoded count is exact).
    public var declaredDuration: Double? { source.declaredFrames.map { Double($0) / source.sampleRate } }
    /// Samples read so far.
    public private(set) var samplesRead = 0
    /// After the last samples of a truncated file (opened `toleratingTruncation`): how it was cut short.
    public var truncation: AudioTruncation? { reader.truncation }

    private let reader: DecodedAudioReader
    private let buffer: AVAudioPCMBuffer

    /// Opens `url`; throws `AudioError` for a file that is missing or not audio. With `toleratingTruncation`, a file
    /// whose data ends before its declared length is read as far as it goes (`truncation` tells); otherwise that is
    /// an `AudioError.corruptFile` at the end.
    public init(url: URL, sampleRate: Double = MonoAudio.speechSampleRate, toleratingTruncation: Bool = false,
                chunkSamples: Int = 1 << 16) throws {
        self.url = url
        self.sampleRate = sampleRate
        let format = MonoAudio.format(sampleRate: sampleRate)
        reader = try DecodedAudioReader(url: url, outputFormat: format, toleratingTruncation: toleratingTruncation)
        buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: AVAudioFrameCount(max(chunkSamples, 1)))!
    }

    /// The next samples (at most the chunk size given at opening); empty at the end of the stream.
    public func read() throws -> [Float] {
        let count = try reader.read(into: buffer, at: 0, frameCount: Int(buffer.frameCapacity))
        samplesRead += count
        return Array(UnsafeBufferPointer(start: buffer.floatChannelData![0], count: count))
    }
}
