/// A PCM buffer's two Core Audio buffer lists, in one allocation freed with it: the list `audioBufferList` shows,
/// whose byte sizes follow `frameLength`, and the one `mutableAudioBufferList` hands out, whose byte sizes are the
/// capacity's and the caller's to change. Both point at the buffer's samples: one `AudioBuffer` per channel, or
/// one in all when interleaved.
struct PCMBufferLists: ~Copyable {
    private let memory: UnsafeMutableRawPointer
    private let listBytes: Int
    /// Bytes of one frame in one `AudioBuffer`.
    private let bytesPerFrame: UInt32

    init(format: AVAudioFormat, frameCapacity: AVAudioFrameCount, channelData: UnsafePointer<UnsafeMutableRawPointer>) {
        let count = format.isInterleaved ? 1 : Int(format.channelCount)
        let channelsPerBuffer = format.isInterleaved ? format.channelCount : 1
        bytesPerFrame = UInt32(format.commonFormat.bytesPerSample) * channelsPerBuffer
        listBytes = AudioBufferList.sizeInBytes(maximumBuffers: count)
        memory = .allocate(byteCount: 2 * listBytes, alignment: MemoryLayout<AudioBufferList>.alignment)
        for (start, bytes) in [(memory, 0), (memory + listBytes, byteSize(frames: frameCapacity))] {
            let first = AudioBuffer(mNumberChannels: channelsPerBuffer, mDataByteSize: bytes, mData: channelData[0])
            start.bindMemory(to: AudioBufferList.self, capacity: 1)
                .initialize(to: AudioBufferList(mNumberBuffers: UInt32(count), mBuffers: first))
            let rest = (start + AudioBufferList.firstBufferOffset + MemoryLayout<AudioBuffer>.stride)
                .bindMemory(to: AudioBuffer.self, capacity: count - 1)
            for index in 1..<max(count, 1) {
                (rest + index - 1).initialize(to: AudioBuffer(mNumberChannels: channelsPerBuffer, mDataByteSize: bytes,
                                                              mData: channelData[index]))
            }
        }
    }

    deinit { memory.deallocate() }

    /// The list whose byte sizes follow `frameLength`.
    var readOnly: UnsafeMutablePointer<AudioBufferList> { memory.assumingMemoryBound(to: AudioBufferList.self) }

    /// The list handed out for writing.
    var mutable: UnsafeMutablePointer<AudioBufferList> {
        (memory + listBytes).assumingMemoryBound(to: AudioBufferList.self)
    }

    /// Sets the read-only list's byte sizes to `frames` frames.
    func setFrameLength(_ frames: AVAudioFrameCount) {
        let buffers = UnsafeMutableAudioBufferListPointer(readOnly)
        let bytes = byteSize(frames: frames)
        for index in buffers.indices { buffers[index].mDataByteSize = bytes }
    }

    /// Bytes of `frames` frames in one `AudioBuffer` (at most `UInt32.max`, all Core Audio's field holds).
    private func byteSize(frames: AVAudioFrameCount) -> UInt32 {
        UInt32(clamping: UInt64(frames) * UInt64(bytesPerFrame))
    }
}
