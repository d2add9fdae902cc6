import AVFoundation

/// Converts the pipe's buffers to the format speech recognition takes, one buffer at a time.
final class BufferConverter {
    enum Error: Swift.Error { case cannotConvert(from: AVAudioFormat, to: AVAudioFormat), conversionFailed(NSError?) }

    private let outputFormat: AVAudioFormat
    private var converter: AVAudioConverter?

    init(to format: AVAudioFormat) { outputFormat = format }

    func convert(_ buffer: AVAudioPCMBuffer) throws -> AVAudioPCMBuffer {
        guard buffer.format != outputFormat else { return buffer }
        if converter == nil || converter?.inputFormat != buffer.format {
            converter = AVAudioConverter(from: buffer.format, to: outputFormat)
            converter?.downmix = true
            converter?.primeMethod = .none
        }
        guard let converter else { throw Error.cannotConvert(from: buffer.format, to: outputFormat) }
        let ratio = outputFormat.sampleRate / buffer.format.sampleRate
        let capacity = AVAudioFrameCount((Double(buffer.frameLength) * ratio).rounded(.up)) + 1
        guard let output = AVAudioPCMBuffer(pcmFormat: outputFormat, frameCapacity: capacity) else {
            throw Error.cannotConvert(from: buffer.format, to: outputFormat)
        }
        var supplied = false
        var error: NSError?
        let status = converter.convert(to: output, error: &error) { _, inputStatus in
            if supplied {
                inputStatus.pointee = .noDataNow
                return nil
            }
            supplied = true
            inputStatus.pointee = .haveData
            return buffer
        }
        guard status != .error else { throw Error.conversionFailed(error) }
        return output
    }
}
