/// Core Audio's identifier of an audio data format (`kAudioFormatLinearPCM` is 'lpcm').
public typealias AudioFormatID = UInt32
/// Core Audio's format flags: bits saying how samples lie in memory (`kAudioFormatFlagIsFloat` ...).
public typealias AudioFormatFlags = UInt32

/// Core Audio's description of an audio stream's layout (`CoreAudioTypes`), with Apple's fields.
///
/// A field of 0 means unknown or not applicable. OpenSpeech reads and writes only linear PCM in it:
/// `AVAudioFormat.streamDescription` describes a format, `AVAudioFormat(streamDescription:)` makes one from it.
public struct AudioStreamBasicDescription: Sendable {
    /// Frames per second.
    public var mSampleRate: Float64
    /// The data format: `kAudioFormatLinearPCM` for PCM.
    public var mFormatID: AudioFormatID
    /// Layout flags (`kAudioFormatFlagIsFloat`, `kAudioFormatFlagIsSignedInteger`, `kAudioFormatFlagIsPacked`,
    /// `kAudioFormatFlagIsNonInterleaved` ...).
    public var mFormatFlags: AudioFormatFlags
    /// Bytes in a packet; for PCM, `mBytesPerFrame`.
    public var mBytesPerPacket: UInt32
    /// Frames in a packet; 1 for PCM.
    public var mFramesPerPacket: UInt32
    /// Bytes in a frame of one buffer: every channel's sample when interleaved, one channel's when not.
    public var mBytesPerFrame: UInt32
    /// Channels in a frame.
    public var mChannelsPerFrame: UInt32
    /// Bits in one channel's sample.
    public var mBitsPerChannel: UInt32
    /// Padding; 0.
    public var mReserved: UInt32

    /// Every field 0.
    public init() {
        self.init(mSampleRate: 0, mFormatID: 0, mFormatFlags: 0, mBytesPerPacket: 0, mFramesPerPacket: 0,
                  mBytesPerFrame: 0, mChannelsPerFrame: 0, mBitsPerChannel: 0, mReserved: 0)
    }

    /// A description with every field given, as Core Audio's memberwise initializer.
    public init(mSampleRate: Float64, mFormatID: AudioFormatID, mFormatFlags: AudioFormatFlags, mBytesPerPacket: UInt32,
                mFramesPerPacket: UInt32, mBytesPerFrame: UInt32, mChannelsPerFrame: UInt32, mBitsPerChannel: UInt32,
                mReserved: UInt32) {
        self.mSampleRate = mSampleRate
        self.mFormatID = mFormatID
        self.mFormatFlags = mFormatFlags
        self.mBytesPerPacket = mBytesPerPacket
        self.mFramesPerPacket = mFramesPerPacket
        self.mBytesPerFrame = mBytesPerFrame
        self.mChannelsPerFrame = mChannelsPerFrame
        self.mBitsPerChannel = mBitsPerChannel
        self.mReserved = mReserved
    }
}

extension AudioStreamBasicDescription {
    /// The description of linear PCM in `format`, as AVFoundation fills it in: native-endian packed samples, signed
    /// integers or floats, bytes per frame counting one channel when deinterleaved.
    init(linearPCM format: AVAudioFormat) {
        let bytes = UInt32(format.commonFormat.bytesPerSample)
        let isFloat = format.commonFormat == .pcmFormatFloat32 || format.commonFormat == .pcmFormatFloat64
        let perFrame = format.isInterleaved ? bytes * format.channelCount : bytes
        self.init(mSampleRate: format.sampleRate, mFormatID: kAudioFormatLinearPCM,
                  mFormatFlags: (isFloat ? kAudioFormatFlagIsFloat : kAudioFormatFlagIsSignedInteger)
                      | kAudioFormatFlagsNativeEndian | kAudioFormatFlagIsPacked
                      | (format.isInterleaved ? 0 : kAudioFormatFlagIsNonInterleaved),
                  mBytesPerPacket: perFrame, mFramesPerPacket: 1, mBytesPerFrame: perFrame,
                  mChannelsPerFrame: format.channelCount, mBitsPerChannel: bytes * 8, mReserved: 0)
    }

    /// The sample type and interleaving of linear PCM this library holds (16- or 32-bit signed integers, 32- or
    /// 64-bit floats, native-endian, samples filling their bytes, one frame per packet); nil for anything else.
    var linearPCMLayout: (commonFormat: AVAudioCommonFormat, interleaved: Bool)? {
        let flags = mFormatFlags
        guard mFormatID == kAudioFormatLinearPCM, mFramesPerPacket == 1, mChannelsPerFrame > 0,
              flags & kAudioFormatFlagIsBigEndian == kAudioFormatFlagsNativeEndian & kAudioFormatFlagIsBigEndian,
              flags & kLinearPCMFormatFlagsSampleFractionMask == 0
        else { return nil }
        let commonFormat: AVAudioCommonFormat
        switch (flags & kAudioFormatFlagIsFloat != 0, flags & kAudioFormatFlagIsSignedInteger != 0, mBitsPerChannel) {
        case (true, _, 32): commonFormat = .pcmFormatFloat32
        case (true, _, 64): commonFormat = .pcmFormatFloat64
        case (false, true, 16): commonFormat = .pcmFormatInt16
        case (false, true, 32): commonFormat = .pcmFormatInt32
        default: return nil
        }
        let interleaved = flags & kAudioFormatFlagIsNonInterleaved == 0
        let bytes = UInt32(commonFormat.bytesPerSample)
        let perFrame = interleaved ? bytes * mChannelsPerFrame : bytes
        guard mBytesPerFrame == perFrame, mBytesPerPacket == perFrame else { return nil }
        return (commonFormat, interleaved)
    }
}
