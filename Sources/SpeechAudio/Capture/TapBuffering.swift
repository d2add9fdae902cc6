import Foundation

/// Cuts captured chunks into one tap's buffers of its size, converting them when the tap asked for another format.
///
/// Used by the engine's delivery thread only. A gap in the chunks (dropped audio) ends the buffer being filled, so
/// every buffer's `AVAudioTime` is the exact position of its first frame.
final class TapBuffering {
    let tap: AudioTap
    let captureFormat: AVAudioFormat
    let deliveredFormat: AVAudioFormat
    private let converter: AVAudioConverter?
    private let framesPerBuffer: Int
    private var pending: AVAudioPCMBuffer?
    private var pendingStart: Int64 = 0
    private var pendingHostTime: UInt64 = 0

    init(tap: AudioTap, captureFormat: AVAudioFormat) {
        self.tap = tap
        self.captureFormat = captureFormat
        let requested = tap.format.flatMap { $0.channelCount > 0 && $0 != captureFormat ? $0 : nil }
        converter = requested.flatMap { AVAudioConverter(from: captureFormat, to: $0) }
        deliveredFormat = converter == nil ? captureFormat : requested!
        framesPerBuffer = max(16, Int((Double(tap.bufferSize) * captureFormat.sampleRate / deliveredFormat.sampleRate).rounded()))
    }

    /// The tap's buffers completed by `chunk`, with the time of each one's first frame.
    func append(_ chunk: CapturedChunk) -> [(AVAudioPCMBuffer, AVAudioTime)] {
        var ready: [(AVAudioPCMBuffer, AVAudioTime)] = []
        if let pending, chunk.startFrame != pendingStart + Int64(pending.frameLength) {
            ready += flush()
        }
        let channels = Int(captureFormat.channelCount)
        var offset = 0
        while offset < chunk.frameCount {
            let buffer: AVAudioPCMBuffer
            if let pending {
                buffer = pending
            } else {
                buffer = AVAudioPCMBuffer(pcmFormat: captureFormat, frameCapacity: AVAudioFrameCount(framesPerBuffer))!
                pending = buffer
                pendingStart = chunk.startFrame + Int64(offset)
                pendingHostTime = chunk.hostTime + UInt64(Double(offset) / captureFormat.sampleRate * 1e9)
            }
            let filled = Int(buffer.frameLength)
            let count = min(framesPerBuffer - filled, chunk.frameCount - offset)
            let planes = buffer.floatChannelData!
            chunk.samples.withUnsafeBufferPointer { samples in
                for channel in 0..<channels {
                    let plane = planes[channel] + filled
                    var index = offset * channels + channel
                    for frame in 0..<count {
                        plane[frame] = samples[index]
                        index += channels
                    }
                }
            }
            buffer.frameLength = AVAudioFrameCount(filled + count)
            offset += count
            if filled + count == framesPerBuffer { ready += flush() }
        }
        return ready
    }

    /// The buffer being filled, delivered as it is.
    func flush() -> [(AVAudioPCMBuffer, AVAudioTime)] {
        guard let buffer = pending, buffer.frameLength > 0 else { return [] }
        pending = nil
        guard let converter else {
            return [(buffer, AVAudioTime(hostTime: pendingHostTime, sampleTime: pendingStart, atRate: captureFormat.sampleRate))]
        }
        let ratio = deliveredFormat.sampleRate / captureFormat.sampleRate
        let capacity = AVAudioFrameCount((Double(buffer.frameLength) * ratio).rounded(.up)) + 64
        guard let output = AVAudioPCMBuffer(pcmFormat: deliveredFormat, frameCapacity: capacity),
              (try? converter.convert(to: output, from: buffer)) != nil, output.frameLength > 0 else { return [] }
        let sampleTime = AVAudioFramePosition((Double(pendingStart) * ratio).rounded())
        return [(output, AVAudioTime(hostTime: pendingHostTime, sampleTime: sampleTime, atRate: deliveredFormat.sampleRate))]
    }
}
