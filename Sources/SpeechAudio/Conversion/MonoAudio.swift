import Foundation
import CFFmpeg

/// Audio as speech models take it: mono Float32 samples at one rate (16 kHz for Whisper and Silero VAD).
public enum MonoAudio {
    /// The rate the speech models of this package run at.
    public static let speechSampleRate: Double = 16_000

    /// Mono Float32 deinterleaved at `sampleRate`.
    public static func format(sampleRate: Double = speechSampleRate) -> AVAudioFormat {
        AVAudioFormat(commonFormat: .pcmFormatFloat32, sampleRate: sampleRate, channels: 1, interleaved: false)!
    }

    /// A buffer in `format(sampleRate:)` holding `samples` (at least one frame of capacity).
    public static func buffer(_ samples: [Float], sampleRate: Double = speechSampleRate) -> AVAudioPCMBuffer {
        let buffer = AVAudioPCMBuffer(pcmFormat: format(sampleRate: sampleRate),
                                      frameCapacity: AVAudioFrameCount(max(samples.count, 1)))!
        samples.withUnsafeBufferPointer { samples in
            if let start = samples.baseAddress { buffer.floatChannelData![0].update(from: start, count: samples.count) }
        }
        buffer.frameLength = AVAudioFrameCount(samples.count)
        return buffer
    }

    /// Decodes the first audio stream of any file FFmpeg reads into mono samples at `sampleRate`, channels
    /// averaged, in one decode-and-resample pass. Sample `i` is at time `i / sampleRate` of the file.
    public static func load(contentsOf url: URL, sampleRate: Double = speechSampleRate) throws -> [Float] {
        let reader = try MonoAudioReader(url: url, sampleRate: sampleRate)
        var samples: [Float] = []
        if let declared = reader.declaredDuration { samples.reserveCapacity(Int(declared * sampleRate) + (1 << 16)) }
        while true {
            let piece = try reader.read()
            if piece.isEmpty { return samples }
            samples += piece
        }
    }
}

/// Converts a stream of PCM buffers in one format to mono Float32 at a target rate, keeping the resampler's
/// state between buffers, so the output is the same however the input is cut. Output sample `i` is at time
/// `i / outputSampleRate` from the first input frame. Not thread-safe: one owner at a time.
public final class MonoStreamConverter {
    /// The format of the buffers the converter takes.
    public let inputFormat: AVAudioFormat
    /// The rate of the mono Float32 samples it produces, in hertz.
    public let outputSampleRate: Double
    /// Input frames taken so far.
    public private(set) var inputFrames: Int64 = 0
    /// Output samples delivered so far.
    public private(set) var outputFrames: Int64 = 0
    private let converter: SampleRateConverter
    private var scratch: [Float] = []

    /// Throws `AudioError.unsupportedConversion` for `.otherFormat` input.
    public init(inputFormat: AVAudioFormat, outputSampleRate: Double = MonoAudio.speechSampleRate) throws {
        guard let sampleFormat = ffmpegSampleFormat(inputFormat.commonFormat, interleaved: inputFormat.isInterleaved),
              let converter = SampleRateConverter(
                input: .init(sampleFormat: sampleFormat, sampleRate: Int32(inputFormat.sampleRate.rounded()),
                             channels: Int32(inputFormat.channelCount)),
                output: .init(sampleFormat: AV_SAMPLE_FMT_FLT, sampleRate: Int32(outputSampleRate.rounded()),
                              channels: 1))
        else {
            throw AudioError.unsupportedConversion(from: inputFormat.description,
                                                   to: "mono Float32 at \(outputSampleRate) Hz")
        }
        self.inputFormat = inputFormat
        self.outputSampleRate = outputSampleRate
        self.converter = converter
    }

    /// Converts the buffer's `frameLength` frames; returns the samples ready so far (the resampler holds back a
    /// few until more input or `finish()`). Throws `AudioError.formatMismatch` for a buffer in another format.
    public func convert(_ buffer: AVAudioPCMBuffer) throws -> [Float] {
        guard buffer.format == inputFormat else {
            throw AudioError.formatMismatch(expected: inputFormat.description, actual: buffer.format.description)
        }
        let frames = Int(buffer.frameLength)
        inputFrames += Int64(frames)
        let capacity = converter.pendingOutput(afterInput: frames) + 16
        return produce(capacity: capacity) { output in
            withPlanePointers(buffer, offset: 0) { input in
                input.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: 1) {
                    converter.convert($0, inputFrames: frames, into: output, capacity: capacity)
                }
            }
        }
    }

    /// Flushes the resampler: the last samples of the stream.
    public func finish() -> [Float] {
        let capacity = converter.pendingOutput(afterInput: 0) + 64
        return produce(capacity: capacity) { converter.convert(nil, inputFrames: 0, into: $0, capacity: capacity) }
    }

    private func produce(capacity: Int, _ body: (UnsafePointer<UnsafeMutablePointer<UInt8>?>) -> Int) -> [Float] {
        if scratch.count < capacity { scratch = [Float](repeating: 0, count: capacity) }
        let count = scratch.withUnsafeMutableBufferPointer { samples in
            var plane: UnsafeMutablePointer<UInt8>? = UnsafeMutableRawPointer(samples.baseAddress!)
                .assumingMemoryBound(to: UInt8.self)
            return withUnsafePointer(to: &plane) { body($0) }
        }
        outputFrames += Int64(count)
        return Array(scratch[0..<count])
    }
}
