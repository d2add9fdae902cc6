import AVFoundation

/// Interleaved 16-bit PCM read from standard input and cut into buffers as it arrives.
final class RawPCMSource: Sendable {
    let format: AVAudioFormat

    /// Nil when Core Audio cannot describe the stream.
    init?(sampleRate: Double, channels: UInt32) {
        var description = AudioStreamBasicDescription(
            mSampleRate: sampleRate, mFormatID: kAudioFormatLinearPCM,
            mFormatFlags: kLinearPCMFormatFlagIsSignedInteger | kLinearPCMFormatFlagIsPacked,
            mBytesPerPacket: 2 * channels, mFramesPerPacket: 1, mBytesPerFrame: 2 * channels,
            mChannelsPerFrame: channels, mBitsPerChannel: 16, mReserved: 0)
        guard let format = AVAudioFormat(streamDescription: &description) else { return nil }
        self.format = format
    }

    /// The buffers of standard input, read on a queue of their own, until it ends.
    func buffers() -> AsyncStream<AVAudioPCMBuffer> {
        let format = format
        return AsyncStream { continuation in
            DispatchQueue(label: "apple-speech-pipe.stdin").async {
                let bytesPerFrame = Int(format.streamDescription.pointee.mBytesPerFrame)
                var pending = Data()
                while let chunk = try? FileHandle.standardInput.read(upToCount: 16_384), !chunk.isEmpty {
                    pending.append(chunk)
                    let frames = AVAudioFrameCount(pending.count / bytesPerFrame)
                    guard frames > 0, let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: frames) else {
                        continue
                    }
                    buffer.frameLength = buffer.frameCapacity
                    let audioBuffer = buffer.audioBufferList.pointee.mBuffers
                    let byteCount = Int(audioBuffer.mDataByteSize)
                    pending.withUnsafeBytes { bytes in
                        guard let base = bytes.baseAddress else { return }
                        audioBuffer.mData?.copyMemory(from: base, byteCount: byteCount)
                    }
                    pending.removeFirst(byteCount)
                    continuation.yield(buffer)
                }
                continuation.finish()
            }
        }
    }
}
