import Foundation
import SpeechAudio

/// Where a legacy recognition task reads its audio.
enum LegacyAudioSource: Sendable {
    case file(URL)
    case buffers(LegacyAudioChannel)
}

/// The audio an `SFSpeechAudioBufferRecognitionRequest` is given, from the thread that appends (an audio tap) to
/// the task that recognizes it: unbounded, so no audio is lost when recognition falls behind; copies each buffer,
/// so a producer may reuse its own.
final class LegacyAudioChannel: Sendable {
    let buffers: AsyncStream<AVAudioPCMBuffer>
    private let continuation: AsyncStream<AVAudioPCMBuffer>.Continuation

    init() {
        (buffers, continuation) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
    }

    func append(_ buffer: AVAudioPCMBuffer) {
        guard buffer.frameLength > 0, let copy = buffer.copied() else { return }
        continuation.yield(copy)
    }

    func end() {
        continuation.finish()
    }
}

extension AVAudioPCMBuffer {
    /// A new buffer holding a copy of this one's valid frames.
    func copied() -> AVAudioPCMBuffer? {
        guard let copy = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: frameLength) else { return nil }
        copy.frameLength = frameLength
        let pointers = format.isInterleaved ? 1 : Int(format.channelCount), count = Int(frameLength) * stride
        func duplicate<T>(_ from: UnsafePointer<UnsafeMutablePointer<T>>?, _ to: UnsafePointer<UnsafeMutablePointer<T>>?) {
            guard let from, let to else { return }
            for channel in 0..<pointers { to[channel].update(from: from[channel], count: count) }
        }
        switch format.commonFormat {
        case .pcmFormatFloat32: duplicate(floatChannelData, copy.floatChannelData)
        case .pcmFormatFloat64: duplicate(float64ChannelData, copy.float64ChannelData)
        case .pcmFormatInt16: duplicate(int16ChannelData, copy.int16ChannelData)
        case .pcmFormatInt32: duplicate(int32ChannelData, copy.int32ChannelData)
        default: return nil
        }
        return copy
    }
}
