import Foundation

/// Reads the first audio stream of any file FFmpeg reads as mono Float32 at one rate (16 kHz by default), piece by
/// piece, in a single decode-and-resample pass: a file is decoded once however long it is, in bounded memory. A mono
/// PCM WAV file already at that rate is read directly (`MonoWAVReader`: the same samples, without loading FFmpeg).
/// Not thread-safe: one owner at a time.
public final class MonoAudioReader {
    /// The file being read.
    public let url: URL
    /// The rate of the mono Float32 samples it produces, in hertz.
    public let sampleRate: Double
    /// What the container and codec say about the stream.
    public var source: AudioSourceInfo {
        switch decoder {
        case .wav(let reader): reader.source
        case .ffmpeg(let reader, _): reader.source
        }
    }
    /// The duration the container declares, in seconds, if it declares one (the decoded count is exact).
    public var declaredDuration: Double? { source.declaredFrames.map { Double($0) / source.sampleRate } }
    /// Samples read so far.
    public private(set) var samplesRead = 0
    /// After the last samples of a truncated file (opened `toleratingTruncation`): how it was cut short.
    public var truncation: AudioTruncation? {
        switch decoder {
        case .wav(let reader): reader.truncation
        case .ffmpeg(let reader, _): reader.truncation
        }
    }
    /// Whether the file is read without FFmpeg (a mono PCM WAV file at `sampleRate`).
    package var readsWAVDirectly: Bool {
        if case .wav = decoder { true } else { false }
    }

    private enum Decoder {
        case wav(MonoWAVReader)
        case ffmpeg(DecodedAudioReader, AVAudioPCMBuffer)
    }
    private let decoder: Decoder
    private let chunkSamples: Int

    /// Opens `url`; throws `AudioError` for a file that is missing or not audio. With `toleratingTruncation`, a file
    /// whose data ends before its declared length is read as far as it goes (`truncation` tells); otherwise that is
    /// an `AudioError.corruptFile` at the end.
    public convenience init(url: URL, sampleRate: Double = MonoAudio.speechSampleRate, toleratingTruncation: Bool = false,
                            chunkSamples: Int = 1 << 16) throws {
        try self.init(url: url, sampleRate: sampleRate, toleratingTruncation: toleratingTruncation,
                      chunkSamples: chunkSamples, readingWAVDirectly: true)
    }

    /// With `readingWAVDirectly` false, every file goes through FFmpeg (to compare the two).
    package init(url: URL, sampleRate: Double, toleratingTruncation: Bool, chunkSamples: Int,
                 readingWAVDirectly: Bool) throws {
        self.url = url
        self.sampleRate = sampleRate
        self.chunkSamples = max(chunkSamples, 1)
        if readingWAVDirectly,
           let wav = MonoWAVReader(url: url, sampleRate: sampleRate, toleratingTruncation: toleratingTruncation) {
            decoder = .wav(wav)
        } else {
            let format = MonoAudio.format(sampleRate: sampleRate)
            decoder = .ffmpeg(
                try DecodedAudioReader(url: url, outputFormat: format, toleratingTruncation: toleratingTruncation),
                AVAudioPCMBuffer(pcmFormat: format, frameCapacity: AVAudioFrameCount(self.chunkSamples))!)
        }
    }

    /// The next samples (at most the chunk size given at opening); empty at the end of the stream.
    public func read() throws -> [Float] {
        let samples: [Float]
        switch decoder {
        case .wav(let reader):
            samples = try [Float](unsafeUninitializedCapacity: chunkSamples) { buffer, count in
                count = 0
                count = try reader.read(into: buffer)
            }
        case .ffmpeg(let reader, let buffer):
            let count = try reader.read(into: buffer, at: 0, frameCount: Int(buffer.frameCapacity))
            samples = Array(UnsafeBufferPointer(start: buffer.floatChannelData![0], count: count))
        }
        samplesRead += samples.count
        return samples
    }
}
