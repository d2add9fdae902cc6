/// The buffers of an `AudioBufferList` as a collection, as in Core Audio's Swift overlay: `list[i]` is the i-th
/// `AudioBuffer`, read and written in place; `count` is `mNumberBuffers`.
public struct UnsafeMutableAudioBufferListPointer: MutableCollection, RandomAccessCollection {
    /// The list.
    public var unsafeMutablePointer: UnsafeMutablePointer<AudioBufferList>

    /// The buffers of the list at `p`.
    public init(_ p: UnsafeMutablePointer<AudioBufferList>) { unsafeMutablePointer = p }

    /// The buffers of the list at `p`; nil when `p` is.
    public init?(_ p: UnsafeMutablePointer<AudioBufferList>?) {
        guard let p else { return nil }
        self.init(p)
    }

    /// The list, read-only.
    public var unsafePointer: UnsafePointer<AudioBufferList> { UnsafePointer(unsafeMutablePointer) }

    /// The number of buffers (`mNumberBuffers`); setting it writes the list's count.
    public var count: Int {
        get { Int(unsafeMutablePointer.pointee.mNumberBuffers) }
        nonmutating set { unsafeMutablePointer.pointee.mNumberBuffers = UInt32(newValue) }
    }

    /// 0.
    public var startIndex: Int { 0 }
    /// `count`.
    public var endIndex: Int { count }

    /// The buffer at `index`, in the list's memory.
    public subscript(index: Int) -> AudioBuffer {
        get {
            precondition(index >= 0 && index < count, "AudioBufferList index out of range")
            return buffers[index]
        }
        nonmutating set {
            precondition(index >= 0 && index < count, "AudioBufferList index out of range")
            buffers[index] = newValue
        }
    }

    /// The first buffer, `mBuffers`, with the others after it.
    private var buffers: UnsafeMutablePointer<AudioBuffer> {
        (UnsafeMutableRawPointer(unsafeMutablePointer) + AudioBufferList.firstBufferOffset)
            .assumingMemoryBound(to: AudioBuffer.self)
    }
}
