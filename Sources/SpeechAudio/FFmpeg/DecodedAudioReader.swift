import CFFmpeg
import Foundation

/// Reads a file's first audio stream as PCM in a chosen format: FFmpeg decodes, libswresample converts the
/// sample type, channel count and rate in the same pass. Not thread-safe: one owner at a time.
final class DecodedAudioReader {
    let url: URL
    let source: AudioSourceInfo
    let outputFormat: AVAudioFormat
    private let decoder: FFmpegAudioDecoder
    private var converter: SampleRateConverter?
    private var finished = false
    /// Frames decoded so far at the source rate, to check the stream against its declared length.
    private var decodedSourceFrames: Int64 = 0
    /// Whether a stream that ends well before its declared length is read as far as it goes (`truncation` then says
    /// so) instead of being an error.
    private let toleratesTruncation: Bool
    /// Set at the end of a stream cut short, when truncation is tolerated.
    private(set) var truncation: AudioTruncation?

    /// A reader delivering `outputFormat`, or the source's own rate and channels as Float32 deinterleaved.
    init(url: URL, outputFormat: AVAudioFormat? = nil, toleratingTruncation: Bool = false) throws(AudioError) {
        self.url = url
        toleratesTruncation = toleratingTruncation
        decoder = try FFmpegAudioDecoder(url: url)
        source = decoder.info
        self.outputFormat = outputFormat
            ?? AVAudioFormat(standardFormatWithSampleRate: source.sampleRate, channels: source.channelCount)!
    }

    /// Fills `buffer` (in `outputFormat`) from frame `offset` up to `frameCount` frames or its capacity;
    /// returns the frames written, fewer only at the end of the stream.
    func read(into buffer: AVAudioPCMBuffer, at offset: Int, frameCount: Int) throws(AudioError) -> Int {
        guard buffer.format == outputFormat else {
            throw .formatMismatch(expected: outputFormat.description, actual: buffer.format.description)
        }
        let wanted = min(frameCount, Int(buffer.frameCapacity) - offset)
        var written = 0
        while written < wanted {
            if let converter {
                written += withPlanePointers(buffer, offset: offset + written) {
                    converter.drain(into: $0, capacity: wanted - written)
                }
                if written >= wanted { break }
            }
            if finished { break }
            guard let frame = try decoder.nextFrame() else {
                try checkComplete()
                finished = true
                if let converter {
                    written += withPlanePointers(buffer, offset: offset + written) {
                        converter.convert(nil, inputFrames: 0, into: $0, capacity: wanted - written)
                    }
                }
                break
            }
            let frames = Int(frame.pointee.nb_samples)
            decodedSourceFrames += Int64(frames)
            let converter = try converter(for: frame)
            written += withPlanePointers(buffer, offset: offset + written) { output in
                frame.pointee.extended_data.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: 1) {
                    converter.convert($0, inputFrames: frames, into: output, capacity: wanted - written)
                }
            }
        }
        return written
    }

    /// Reads the rest of the stream, discarding it, and returns how many output frames it held.
    func skipToEnd(chunkFrames: AVAudioFrameCount = 65_536) throws(AudioError) -> Int64 {
        let scratch = AVAudioPCMBuffer(pcmFormat: outputFormat, frameCapacity: chunkFrames)!
        var total: Int64 = 0
        while true {
            let count = try read(into: scratch, at: 0, frameCount: Int(chunkFrames))
            total += Int64(count)
            if count < Int(chunkFrames) { return total }
        }
    }

    /// The converter for this frame's layout; rebuilt if the stream changes format midway.
    private func converter(for frame: UnsafeMutablePointer<AVFrame>) throws(AudioError) -> SampleRateConverter {
        let input = SampleRateConverter.Side(
            sampleFormat: AVSampleFormat(frame.pointee.format), sampleRate: frame.pointee.sample_rate,
            channels: frame.pointee.ch_layout.nb_channels)
        if let converter, converter.input == input { return converter }
        let output = SampleRateConverter.Side(
            sampleFormat: ffmpegSampleFormat(outputFormat.commonFormat, interleaved: outputFormat.isInterleaved)!,
            sampleRate: Int32(outputFormat.sampleRate.rounded()), channels: Int32(outputFormat.channelCount))
        guard let made = SampleRateConverter(input: input, output: output) else {
            throw .unsupportedConversion(from: "\(input.channels) ch \(input.sampleRate) Hz of \(source.codec)",
                                         to: outputFormat.description)
        }
        converter = made
        return made
    }

    /// A stream that ends well before the length its container declares was cut short.
    private func checkComplete() throws(AudioError) {
        truncation = try AudioTruncation.check(url, source: source, presentFrames: decodedSourceFrames,
                                               tolerated: toleratesTruncation)
    }
}
