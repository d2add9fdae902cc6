import Foundation

/// One buffer of audio samples, as in Core Audio (`CoreAudioTypes`): where its bytes are and how many are valid.
public struct AudioBuffer {
    /// Channels interleaved in the buffer (1 for a deinterleaved format's buffer).
    public var mNumberChannels: UInt32
    /// Bytes of audio in the buffer.
    public var mDataByteSize: UInt32
    /// The first byte of audio.
    public var mData: UnsafeMutableRawPointer?

    /// An empty buffer: no channels, no bytes, no data.
    public init() { self.init(mNumberChannels: 0, mDataByteSize: 0, mData: nil) }

    /// A buffer with every field given.
    public init(mNumberChannels: UInt32, mDataByteSize: UInt32, mData: UnsafeMutableRawPointer?) {
        self.mNumberChannels = mNumberChannels
        self.mDataByteSize = mDataByteSize
        self.mData = mData
    }
}

/// A list of audio buffers, as in Core Audio: `mNumberBuffers` buffers lie one after another from `mBuffers`
/// (one per channel for deinterleaved audio, one in all for interleaved). Reach the ones after the first through
/// `UnsafeMutableAudioBufferListPointer`.
public struct AudioBufferList {
    /// The number of buffers in the list.
    public var mNumberBuffers: UInt32
    /// The first buffer; the others follow it in memory.
    public var mBuffers: AudioBuffer

    /// A list of no buffers.
    public init() { self.init(mNumberBuffers: 0, mBuffers: AudioBuffer()) }

    /// A list with its count and first buffer given.
    public init(mNumberBuffers: UInt32, mBuffers: AudioBuffer) {
        self.mNumberBuffers = mNumberBuffers
        self.mBuffers = mBuffers
    }

    /// Bytes a list of `maximumBuffers` buffers takes.
    public static func sizeInBytes(maximumBuffers: Int) -> Int {
        precondition(maximumBuffers >= 1, "AudioBufferList needs room for at least one buffer")
        return firstBufferOffset + maximumBuffers * MemoryLayout<AudioBuffer>.stride
    }

    /// Where `mBuffers`, the first buffer, lies in a list.
    static let firstBufferOffset = MemoryLayout<AudioBufferList>.offset(of: \.mBuffers)!

    /// A zeroed list with room for `maximumBuffers` buffers, `mNumberBuffers` set to it; the caller frees it with
    /// `free(_:)`, as with Apple's.
    public static func allocate(maximumBuffers: Int) -> UnsafeMutableAudioBufferListPointer {
        guard let raw = calloc(1, sizeInBytes(maximumBuffers: maximumBuffers)) else {
            fatalError("AudioBufferList.allocate: out of memory")
        }
        let list = raw.bindMemory(to: AudioBufferList.self, capacity: 1)
        list.pointee.mNumberBuffers = UInt32(maximumBuffers)
        return UnsafeMutableAudioBufferListPointer(list)
    }
}
