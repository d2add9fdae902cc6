// `AVAudioBuffer.audioBufferList` and `mutableAudioBufferList`: raw PCM in and out of buffers as client code moves it
// (issue 47).
import Foundation
import SpeechAudio
import Testing

@Suite struct AudioBufferListTests {
    @Test("interleaved 16-bit: one buffer whose byte size follows frameLength; raw bytes in and out")
    func interleavedBytes() throws {
        let format = AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: 16_000, channels: 2, interleaved: true)!
        let samples: [Int16] = (0..<200).map { Int16($0 * 37 - 3_000) }
        let data = samples.withUnsafeBytes { Data($0) }
        // As clients wrap bytes from a pipe or a socket: frames from `mBytesPerFrame`, `frameLength` set, then a copy.
        let frames = AVAudioFrameCount(data.count) / format.streamDescription.pointee.mBytesPerFrame
        let buffer = try #require(AVAudioPCMBuffer(pcmFormat: format, frameCapacity: frames))
        #expect(buffer.audioBufferList.pointee.mNumberBuffers == 1)
        #expect(buffer.audioBufferList.pointee.mBuffers.mDataByteSize == 0)
        buffer.frameLength = buffer.frameCapacity
        let audioBuffer = buffer.audioBufferList.pointee.mBuffers
        #expect(frames == 100 && audioBuffer.mDataByteSize == 400 && audioBuffer.mNumberChannels == 2)
        #expect(audioBuffer.mData == UnsafeMutableRawPointer(buffer.int16ChannelData![0]))
        data.withUnsafeBytes { audioBuffer.mData!.copyMemory(from: $0.baseAddress!, byteCount: Int(audioBuffer.mDataByteSize)) }
        #expect(buffer.int16ChannelData![0][1] == samples[1] && buffer.int16ChannelData![0][199] == samples[199])
        // And out again, as `Data(bytes:count:)` from the list.
        buffer.frameLength = 50
        let list = buffer.audioBufferList.pointee.mBuffers
        #expect(Data(bytes: list.mData!, count: Int(list.mDataByteSize)) == data.prefix(200))
    }

    @Test("deinterleaved: one buffer per channel, reached through UnsafeMutableAudioBufferListPointer")
    func deinterleavedChannels() throws {
        let format = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 3)!
        let buffer = try #require(AVAudioPCMBuffer(pcmFormat: format, frameCapacity: 64))
        buffer.frameLength = 10
        let buffers = UnsafeMutableAudioBufferListPointer(UnsafeMutablePointer(mutating: buffer.audioBufferList))
        #expect(buffers.count == 3)
        for (channel, audioBuffer) in buffers.enumerated() {
            #expect(audioBuffer.mNumberChannels == 1 && audioBuffer.mDataByteSize == 40)
            #expect(audioBuffer.mData == UnsafeMutableRawPointer(buffer.floatChannelData![channel]))
        }
        // The mutable list: sizes of the capacity, the caller's to change without touching frameLength.
        let writable = UnsafeMutableAudioBufferListPointer(buffer.mutableAudioBufferList)
        #expect(writable.map(\.mDataByteSize) == [256, 256, 256])
        writable[1].mDataByteSize = 8
        #expect(buffer.frameLength == 10 && buffers[1].mDataByteSize == 40)
        buffer.frameLength = 1_000 // past the capacity: the capacity
        #expect(buffer.frameLength == 64 && buffers.allSatisfy { $0.mDataByteSize == 256 })
    }

    @Test("a list allocated for copies holds its buffers and is freed with free()")
    func allocatedList() {
        let list = AudioBufferList.allocate(maximumBuffers: 4)
        defer { free(list.unsafeMutablePointer) }
        #expect(list.count == 4 && list.allSatisfy { $0.mData == nil && $0.mDataByteSize == 0 })
        list[3] = AudioBuffer(mNumberChannels: 1, mDataByteSize: 12, mData: nil)
        #expect(list[3].mDataByteSize == 12)
        #expect(AudioBufferList.sizeInBytes(maximumBuffers: 4)
                    == MemoryLayout<AudioBufferList>.size + 3 * MemoryLayout<AudioBuffer>.stride)
    }
}
