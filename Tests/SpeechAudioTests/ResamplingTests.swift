import Foundation
import SpeechAudio
import Testing
import TestSupport

/// Sample-rate, channel and sample-type conversion through `AVAudioConverter` and `MonoStreamConverter`.
@Suite struct ResamplingTests {
    /// A logarithmic sine sweep from `low` to `high` Hz, `seconds` long, at `rate`, amplitude 0.5.
    static func sweep(rate: Double, seconds: Double, low: Double = 50, high: Double = 7_000) -> [Float] {
        let count = Int(rate * seconds)
        let k = log(high / low) / seconds
        return (0..<count).map { index in
            let t = Double(index) / rate
            return Float(0.5 * sin(2 * Double.pi * low * (exp(k * t) - 1) / k))
        }
    }

    static func buffer(_ samples: [Float], rate: Double, channels: Int = 1) -> AVAudioPCMBuffer {
        let format = AVAudioFormat(standardFormatWithSampleRate: rate, channels: AVAudioChannelCount(channels))!
        let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: AVAudioFrameCount(samples.count))!
        for channel in 0..<channels {
            samples.withUnsafeBufferPointer {
                buffer.floatChannelData![channel].update(from: $0.baseAddress!, count: samples.count)
            }
        }
        buffer.frameLength = AVAudioFrameCount(samples.count)
        return buffer
    }

    /// Signal-to-noise ratio in dB of `actual` against `expected`, skipping `margin` samples at each end.
    static func snr(_ actual: [Float], _ expected: [Float], margin: Int) -> Double {
        var signal = 0.0, noise = 0.0
        for index in margin..<(min(actual.count, expected.count) - margin) {
            signal += Double(expected[index] * expected[index])
            let error = Double(actual[index] - expected[index])
            noise += error * error
        }
        return 10 * log10(signal / noise)
    }

    /// Runs a whole stream through an AVAudioConverter the way Apple's sample code does, ending with
    /// `.endOfStream` answered together with the last buffer.
    static func convertStream(_ pieces: [AVAudioPCMBuffer], converter: AVAudioConverter, outputCapacity: Int) -> [Float] {
        var output: [Float] = []
        var index = 0
        let out = AVAudioPCMBuffer(pcmFormat: converter.outputFormat, frameCapacity: AVAudioFrameCount(outputCapacity))!
        while true {
            var error: NSError?
            let status = converter.convert(to: out, error: &error) { _, inputStatus in
                guard index < pieces.count else {
                    inputStatus.pointee = .endOfStream
                    return nil
                }
                defer { index += 1 }
                inputStatus.pointee = index == pieces.count - 1 ? .endOfStream : .haveData
                return pieces[index]
            }
            #expect(error == nil)
            output += UnsafeBufferPointer(start: out.floatChannelData![0], count: Int(out.frameLength))
            if status == .endOfStream || status == .error { break }
        }
        return output
    }

    /// In band means up to 6 kHz (75 % of 16 kHz's Nyquist frequency). There libswresample's default filter,
    /// the one faster-whisper's decoding uses too, keeps ≥ 60 dB; from 6 to 7 kHz it measured 55.7 dB.
    @Test(arguments: [44_100.0, 48_000.0, 22_050.0, 8_000.0])
    func resamplingKeepsTheSweep(inputRate: Double) throws {
        let seconds = 3.0
        let high = min(6_000, inputRate / 2 * 0.8)
        let input = Self.sweep(rate: inputRate, seconds: seconds, high: high)
        let expected = Self.sweep(rate: 16_000, seconds: seconds, high: high)
        let converter = AVAudioConverter(from: Self.buffer([0], rate: inputRate).format, to: MonoAudio.format())!
        converter.primeMethod = .none
        let output = Self.convertStream([Self.buffer(input, rate: inputRate)], converter: converter, outputCapacity: 4_000)
        // Every frame arrives: the length is the input's duration at the new rate.
        #expect(abs(output.count - expected.count) <= 1, "\(output.count) vs \(expected.count)")
        // In band, the sweep is reproduced; no shift in time (a shift of one sample would cost > 20 dB).
        let ratio = Self.snr(output, expected, margin: 64)
        #expect(ratio >= 60, "SNR \(ratio) dB at \(inputRate) Hz")
    }

    @Test func upsamplingKeepsTheSweep() throws {
        let input = Self.sweep(rate: 16_000, seconds: 2, high: 7_000)
        let expected = Self.sweep(rate: 48_000, seconds: 2, high: 7_000)
        let format48k = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 1)!
        let converter = AVAudioConverter(from: MonoAudio.format(), to: format48k)!
        let output = Self.convertStream([Self.buffer(input, rate: 16_000)], converter: converter, outputCapacity: 10_000)
        #expect(abs(output.count - expected.count) <= 3)
        #expect(Self.snr(output, expected, margin: 200) >= 60)
    }

    @Test func chunkedConversionEqualsOnePiece() throws {
        var generator = SystemRandomNumberGenerator()
        let input = Self.sweep(rate: 44_100, seconds: 4)
        let whole = Self.buffer(input, rate: 44_100)
        let oneConverter = AVAudioConverter(from: whole.format, to: MonoAudio.format())!
        let reference = Self.convertStream([whole], converter: oneConverter, outputCapacity: 100_000)

        // Random input pieces, and a random output buffer size, through the input-block API.
        var pieces: [AVAudioPCMBuffer] = []
        var start = 0
        while start < input.count {
            let size = min(Int.random(in: 1...5_000, using: &generator), input.count - start)
            pieces.append(Self.buffer(Array(input[start..<start + size]), rate: 44_100))
            start += size
        }
        let chunkConverter = AVAudioConverter(from: whole.format, to: MonoAudio.format())!
        let chunked = Self.convertStream(pieces, converter: chunkConverter,
                                         outputCapacity: Int.random(in: 100...3_000, using: &generator))
        #expect(chunked.count == reference.count)
        #expect(maxDifference(chunked, reference) == 0)

        // The same through MonoStreamConverter, as the analyzer uses it.
        let stream = try MonoStreamConverter(inputFormat: whole.format)
        var streamed: [Float] = []
        for piece in pieces { streamed += try stream.convert(piece) }
        streamed += stream.finish()
        #expect(streamed.count == reference.count)
        #expect(maxDifference(streamed, reference) == 0)
        #expect(stream.inputFrames == Int64(input.count))
        #expect(stream.outputFrames == Int64(streamed.count))
    }

    /// Apple's quirk 1: `.haveData` then `.noDataNow` per buffer, as the seeds' code does; nothing lost either.
    @Test func haveDataNoDataNowPatternLosesNothing() throws {
        let input = Self.sweep(rate: 48_000, seconds: 1)
        let converter = AVAudioConverter(from: Self.buffer([0], rate: 48_000).format, to: MonoAudio.format())!
        var total = 0
        for start in stride(from: 0, to: input.count, by: 4_800) {
            let piece = Self.buffer(Array(input[start..<min(start + 4_800, input.count)]), rate: 48_000)
            let out = AVAudioPCMBuffer(pcmFormat: converter.outputFormat, frameCapacity: 2_000)!
            nonisolated(unsafe) var provided = false
            var error: NSError?
            let status = converter.convert(to: out, error: &error) { _, inputStatus in
                if provided {
                    inputStatus.pointee = .noDataNow
                    return nil
                }
                provided = true
                inputStatus.pointee = .haveData
                return piece
            }
            #expect(status == .haveData)
            total += Int(out.frameLength)
        }
        // Only the resampler's short filter delay is still held back, to be flushed at end of stream.
        #expect(total > 16_000 - 64 && total <= 16_000)
    }

    @Test func downmixesAndConvertsSampleTypes() throws {
        // Stereo 48 kHz Int16 interleaved, left = +0.25, right = -0.75: mono is their mean.
        let stereo = AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: 48_000, channels: 2, interleaved: true)!
        let input = AVAudioPCMBuffer(pcmFormat: stereo, frameCapacity: 4_800)!
        for frame in 0..<4_800 {
            input.int16ChannelData![0][frame * 2] = 8_192
            input.int16ChannelData![0][frame * 2 + 1] = -24_576
        }
        input.frameLength = 4_800
        let stream = try MonoStreamConverter(inputFormat: stereo)
        let mono = try stream.convert(input) + stream.finish()
        #expect(abs(mono.count - 1_600) <= 1)
        #expect(mono[100..<1_500].allSatisfy { abs($0 - (-0.25)) < 1e-3 })

        // Float32 to Int32 and back at the same rate is exact to Int32's precision.
        let float = AVAudioFormat(standardFormatWithSampleRate: 16_000, channels: 1)!
        let int32 = AVAudioFormat(commonFormat: .pcmFormatInt32, sampleRate: 16_000, channels: 1, interleaved: false)!
        let source = Self.buffer(Self.sweep(rate: 16_000, seconds: 0.5), rate: 16_000)
        let toInt = AVAudioConverter(from: float, to: int32)!
        let ints = AVAudioPCMBuffer(pcmFormat: int32, frameCapacity: source.frameLength)!
        try toInt.convert(to: ints, from: source)
        #expect(ints.frameLength == source.frameLength)
        let first = Double(ints.int32ChannelData![0][1_000]) / 2_147_483_648
        #expect(abs(first - Double(source.floatChannelData![0][1_000])) < 1e-7)
    }

    @Test func rejectsBuffersInTheWrongFormat() throws {
        let stream = try MonoStreamConverter(inputFormat: MonoAudio.format())
        let wrong = Self.buffer([0, 0, 0], rate: 44_100)
        #expect(throws: AudioError.self) { try stream.convert(wrong) }
        let converter = AVAudioConverter(from: MonoAudio.format(), to: MonoAudio.format(sampleRate: 8_000))!
        let output = AVAudioPCMBuffer(pcmFormat: MonoAudio.format(), frameCapacity: 10)!
        #expect(throws: AudioError.self) { try converter.convert(to: output, from: wrong) }
    }
}
