import Synchronization

/// A buffer of audio in some format, as in AVFoundation; `AVAudioPCMBuffer` is the concrete kind.
///
/// `@unchecked Sendable` (Apple's buffers cross concurrency domains the same way, e.g. in `AnalyzerInput`):
/// the only mutable Swift state, `frameLength`, is an atomic; `format` and `frameCapacity` never change; the
/// sample memory and the buffer lists are reached only through the unsafe pointers of the channel-data and
/// buffer-list properties, whose use, as with any unsafe pointer, is the caller's to synchronize (setting
/// `frameLength` writes the byte sizes of `audioBufferList`, as it writes the frame count). The framework only
/// reads a buffer's samples and frame count after it was handed over, never its lists, and never writes to a
/// buffer it did not create.
public class AVAudioBuffer: @unchecked Sendable {
    /// The format of the buffer's samples; it never changes.
    public let format: AVAudioFormat
    let bufferLists: PCMBufferLists

    init(format: AVAudioFormat, bufferLists: consuming PCMBufferLists) {
        self.format = format
        self.bufferLists = bufferLists
    }

    /// The samples as Core Audio's buffer list, as in AVFoundation: one `AudioBuffer` per channel (one in all
    /// when interleaved), each pointing at its samples, with `mDataByteSize` the bytes of `frameLength` frames.
    /// The list must not be changed; the samples may be. Code that moves raw PCM (`Data`, a pipe, a socket)
    /// copies `mDataByteSize` bytes from or to `mData` (setting `frameLength` first when filling).
    public var audioBufferList: UnsafePointer<AudioBufferList> { UnsafePointer(bufferLists.readOnly) }

    /// The same buffers for code that fills them, as in AVFoundation: `mDataByteSize` is the bytes of
    /// `frameCapacity` frames. Its fields may be changed but this list is the caller's alone: changing a byte size
    /// does not change `frameLength` (Apple's may); set `frameLength` after filling, as Apple's documentation asks.
    public var mutableAudioBufferList: UnsafeMutablePointer<AudioBufferList> { bufferLists.mutable }
}

/// Linear PCM audio in memory, as in AVFoundation: `frameCapacity` frames allocated, `frameLength` valid.
///
/// Deinterleaved formats have one pointer per channel; interleaved ones a single pointer with
/// `stride == channelCount`. Samples are zero-initialized.
public final class AVAudioPCMBuffer: AVAudioBuffer, @unchecked Sendable {
    /// The number of frames the buffer can hold, fixed at creation.
    public let frameCapacity: AVAudioFrameCount
    private let validFrames: Atomic<AVAudioFrameCount>
    /// One allocation holding all samples.
    private let storage: UnsafeMutableRawPointer
    /// Pointers to each channel's first sample (one for interleaved formats).
    private let channelPointers: UnsafeMutablePointer<UnsafeMutableRawPointer>

    /// A buffer for `frameCapacity` frames of `format`; nil for `.otherFormat` or a capacity of zero.
    public init?(pcmFormat format: AVAudioFormat, frameCapacity: AVAudioFrameCount) {
        guard format.commonFormat != .otherFormat, frameCapacity > 0, format.channelCount > 0 else { return nil }
        self.frameCapacity = frameCapacity
        self.validFrames = Atomic(0)
        let bytesPerSample = format.commonFormat.bytesPerSample
        let channels = Int(format.channelCount)
        let byteCount = Int(frameCapacity) * channels * bytesPerSample
        storage = UnsafeMutableRawPointer.allocate(byteCount: max(byteCount, 1), alignment: 64)
        storage.initializeMemory(as: UInt8.self, repeating: 0, count: byteCount)
        let pointerCount = format.isInterleaved ? 1 : channels
        channelPointers = .allocate(capacity: pointerCount)
        for channel in 0..<pointerCount {
            channelPointers[channel] = storage + channel * Int(frameCapacity) * bytesPerSample
        }
        super.init(format: format, bufferLists: PCMBufferLists(format: format, frameCapacity: frameCapacity,
                                                               channelData: channelPointers))
    }

    deinit {
        channelPointers.deallocate()
        storage.deallocate()
    }

    /// The number of valid frames; setting more than `frameCapacity` stores `frameCapacity`. Setting it sets the
    /// byte sizes of `audioBufferList` to match.
    public var frameLength: AVAudioFrameCount {
        get { validFrames.load(ordering: .acquiring) }
        set {
            let frames = min(newValue, frameCapacity)
            bufferLists.setFrameLength(frames)
            validFrames.store(frames, ordering: .releasing)
        }
    }

    /// Samples between consecutive frames of one channel: the channel count when interleaved, else 1.
    public var stride: Int { format.isInterleaved ? Int(format.channelCount) : 1 }

    /// The Float32 samples, one pointer per channel (one in all when interleaved); nil for other sample types.
    public var floatChannelData: UnsafePointer<UnsafeMutablePointer<Float>>? { channels(of: .pcmFormatFloat32) }
    /// The Int16 samples, one pointer per channel (one in all when interleaved); nil for other sample types.
    public var int16ChannelData: UnsafePointer<UnsafeMutablePointer<Int16>>? { channels(of: .pcmFormatInt16) }
    /// The Int32 samples, one pointer per channel (one in all when interleaved); nil for other sample types.
    public var int32ChannelData: UnsafePointer<UnsafeMutablePointer<Int32>>? { channels(of: .pcmFormatInt32) }
    /// Not in Apple's API (Float64 buffers there expose only `audioBufferList`): the Float64 samples.
    public var float64ChannelData: UnsafePointer<UnsafeMutablePointer<Double>>? { channels(of: .pcmFormatFloat64) }

    /// The first byte of each channel (one pointer for interleaved formats).
    var rawChannelPointers: UnsafePointer<UnsafeMutableRawPointer> { UnsafePointer(channelPointers) }

    private func channels<T>(of type: AVAudioCommonFormat) -> UnsafePointer<UnsafeMutablePointer<T>>? {
        guard format.commonFormat == type else { return nil }
        return UnsafeRawPointer(channelPointers).assumingMemoryBound(to: UnsafeMutablePointer<T>.self)
    }
}
