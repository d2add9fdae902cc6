import Foundation
import OpenSpeech

/// Audio read from stdin as it arrives, for `transcribe -`: a WAV stream (its header says the format; the sizes in it
/// are ignored, as `arecord` and `ffmpeg` leave them open), or raw signed 16-bit little-endian PCM at a rate and
/// channel count given on the command line. Converted to `format` and yielded as `AnalyzerInput`s.
enum StandardInputAudio {
    struct Layout: Equatable {
        enum Sample { case int16, int32, float32, uint8 }
        var sample: Sample
        var sampleRate: Double
        var channels: Int

        var bytesPerFrame: Int {
            channels * (sample == .uint8 ? 1 : sample == .int16 ? 2 : 4)
        }
    }

    /// Starts a thread that reads stdin until it ends; the stream finishes then. `prefix` holds the bytes of stdin
    /// already read (to tell a container from raw PCM). A WAV header in a format that cannot be read ends it with a
    /// message on stderr and `failure` set.
    static func stream(raw: Layout, to format: AVAudioFormat, prefix: [UInt8] = [],
                       failure: @escaping @Sendable (String) -> Void) -> AsyncStream<AnalyzerInput> {
        let (stream, continuation) = AsyncStream<AnalyzerInput>.makeStream()
        let thread = Thread {
            defer { continuation.finish() }
            var pending = prefix
            guard let layout = readHeader(&pending, raw: raw, failure: failure) else { return }
            guard let source = AVAudioFormat(standardFormatWithSampleRate: layout.sampleRate,
                                             channels: AVAudioChannelCount(layout.channels)),
                  let converter = AVAudioConverter(from: source, to: format) else {
                failure("cannot convert \(layout.channels) channels at \(layout.sampleRate) Hz")
                return
            }
            let chunkFrames = max(Int(layout.sampleRate / 10), 1)
            var chunk = [UInt8](repeating: 0, count: chunkFrames * layout.bytesPerFrame)
            var ended = false
            while !ended {
                let count = chunk.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { ended = true } else { pending += chunk[0..<count] }
                let frames = pending.count / layout.bytesPerFrame
                guard frames > 0 else { continue }
                let buffer = decode(pending, frames: frames, layout: layout, format: source)
                pending.removeFirst(frames * layout.bytesPerFrame)
                let capacity = AVAudioFrameCount(Double(frames) * format.sampleRate / layout.sampleRate) + 64
                guard let output = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: capacity),
                      (try? converter.convert(to: output, from: buffer)) != nil else { continue }
                if output.frameLength > 0 { continuation.yield(AnalyzerInput(buffer: output)) }
            }
        }
        thread.name = "OpenSpeech stdin"
        thread.start()
        return stream
    }

    /// Reads enough of stdin to tell WAV from raw; for WAV, parses the header up to the audio.
    private static func readHeader(_ pending: inout [UInt8], raw: Layout, failure: (String) -> Void) -> Layout? {
        guard fill(&pending, to: 12) else { return raw }
        guard pending[0..<4].elementsEqual("RIFF".utf8), pending[8..<12].elementsEqual("WAVE".utf8) else { return raw }
        pending.removeFirst(12)
        var layout: Layout?
        while fill(&pending, to: 8) {
            let id = String(decoding: pending[0..<4], as: UTF8.self)
            let size = Int(le32(pending, 4))
            pending.removeFirst(8)
            if id == "data" { break }
            let padded = size + (size & 1)
            guard fill(&pending, to: padded) else { break }
            if id == "fmt ", size >= 16 {
                var tag = Int(le16(pending, 0))
                let channels = Int(le16(pending, 2)), rate = Double(le32(pending, 4)), bits = Int(le16(pending, 14))
                if tag == 0xFFFE, size >= 26 { tag = Int(le16(pending, 24)) }  // WAVE_FORMAT_EXTENSIBLE: the subformat
                let sample: Layout.Sample? = switch (tag, bits) {
                case (1, 8): .uint8
                case (1, 16): .int16
                case (1, 32): .int32
                case (3, 32): .float32
                default: nil
                }
                guard let sample, channels > 0, rate > 0 else {
                    failure("the WAV audio on stdin is in a format that cannot be streamed (format \(tag), \(bits) bits); pipe 16-bit PCM or 32-bit float WAV, or raw 16-bit PCM")
                    return nil
                }
                layout = Layout(sample: sample, sampleRate: rate, channels: channels)
            }
            pending.removeFirst(padded)
        }
        guard let layout else {
            failure("the WAV header on stdin has no format chunk")
            return nil
        }
        return layout
    }

    /// Reads stdin until `pending` holds `count` bytes; false if it ends first.
    private static func fill(_ pending: inout [UInt8], to count: Int) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 4096)
        while pending.count < count {
            let got = chunk.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, min($0.count, count - pending.count)) }
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else { return false }
            pending += chunk[0..<got]
        }
        return true
    }

    private static func le16(_ bytes: [UInt8], _ offset: Int) -> UInt16 { UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8 }
    private static func le32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        (0..<4).reduce(0) { $0 | UInt32(bytes[offset + $1]) << (8 * UInt32($1)) }
    }

    /// `frames` interleaved frames of `bytes` as a Float32 deinterleaved buffer.
    private static func decode(_ bytes: [UInt8], frames: Int, layout: Layout, format: AVAudioFormat) -> AVAudioPCMBuffer {
        let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: AVAudioFrameCount(frames))!
        buffer.frameLength = AVAudioFrameCount(frames)
        let planes = buffer.floatChannelData!
        bytes.withUnsafeBytes { raw in
            for frame in 0..<frames {
                for channel in 0..<layout.channels {
                    let index = frame * layout.channels + channel
                    let value: Float = switch layout.sample {
                    case .uint8: (Float(raw[index]) - 128) / 128
                    case .int16: Float(Int16(littleEndian: raw.loadUnaligned(fromByteOffset: index * 2, as: Int16.self))) / 32_768
                    case .int32: Float(Int32(littleEndian: raw.loadUnaligned(fromByteOffset: index * 4, as: Int32.self))) / 2_147_483_648
                    case .float32: Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self)))
                    }
                    planes[channel][frame] = value
                }
            }
        }
        return buffer
    }
}
