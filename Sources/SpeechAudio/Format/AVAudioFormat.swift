import Foundation

/// The number of sample frames in a buffer or file.
public typealias AVAudioFrameCount = UInt32
/// A position, in sample frames, in a file or stream.
public typealias AVAudioFramePosition = Int64
/// A number of channels.
public typealias AVAudioChannelCount = UInt32
/// A number of packets (for PCM, frames) asked of an input block.
public typealias AVAudioPacketCount = UInt32

/// The sample types an audio format can hold, as in AVFoundation.
public enum AVAudioCommonFormat: UInt, Sendable {
    /// A sample type other than those below; no format is made with it here.
    case otherFormat = 0
    /// 32-bit floating-point samples.
    case pcmFormatFloat32 = 1
    /// 64-bit floating-point samples.
    case pcmFormatFloat64 = 2
    /// 16-bit signed integer samples.
    case pcmFormatInt16 = 3
    /// 32-bit signed integer samples.
    case pcmFormatInt32 = 4

    /// Bytes in one sample of one channel; 0 for `.otherFormat`.
    public var bytesPerSample: Int {
        switch self {
        case .otherFormat: 0
        case .pcmFormatInt16: 2
        case .pcmFormatFloat32, .pcmFormatInt32: 4
        case .pcmFormatFloat64: 8
        }
    }
}

/// A description of linear PCM audio: sample type, rate, channel count and layout in memory, as in AVFoundation.
///
/// Immutable. Equal formats compare equal whatever instance holds them. Unlike Apple's there is no channel
/// layout object: channels follow the default order for their count (mono, stereo L R, ...).
public final class AVAudioFormat: Sendable, Hashable, CustomStringConvertible {
    /// The sample type: 16- or 32-bit integers, or 32- or 64-bit floats.
    public let commonFormat: AVAudioCommonFormat
    /// Frames per second.
    public let sampleRate: Double
    /// The number of channels.
    public let channelCount: AVAudioChannelCount
    /// Whether the channels' samples alternate in one buffer rather than lying in one buffer per channel.
    public let isInterleaved: Bool
    /// The Core Audio description `streamDescription` points at, allocated with the format and freed with it.
    /// `nonisolated(unsafe)` (a pointer is not `Sendable`): it is written once, in `init`, before the format can be
    /// shared, and only read after; the format frees it in `deinit`, when nothing else holds the format.
    private nonisolated(unsafe) let streamDescriptionStorage: UnsafeMutablePointer<AudioStreamBasicDescription>

    /// A format with the given sample type; nil for `.otherFormat`, a rate that is not positive and finite,
    /// or a channel count of zero.
    public init?(commonFormat format: AVAudioCommonFormat, sampleRate: Double, channels: AVAudioChannelCount,
                 interleaved: Bool) {
        guard format != .otherFormat, sampleRate.isFinite, sampleRate > 0, channels > 0, channels <= 64 else {
            return nil
        }
        self.commonFormat = format
        self.sampleRate = sampleRate
        self.channelCount = channels
        self.isInterleaved = interleaved
        streamDescriptionStorage = .allocate(capacity: 1)
        streamDescriptionStorage.initialize(to: AudioStreamBasicDescription(linearPCM: self))
    }

    /// The format an input node reports when there is no input device: Float32, 0 Hz, 0 channels, as on Apple's
    /// platforms. No buffer can be made in it.
    static let noDevice = AVAudioFormat(noDeviceFormat: ())

    private init(noDeviceFormat: Void) {
        commonFormat = .pcmFormatFloat32
        sampleRate = 0
        channelCount = 0
        isInterleaved = false
        streamDescriptionStorage = .allocate(capacity: 1)
        streamDescriptionStorage.initialize(to: AudioStreamBasicDescription(linearPCM: self))
    }

    deinit { streamDescriptionStorage.deallocate() }

    /// The standard format: 32-bit float, deinterleaved.
    public convenience init?(standardFormatWithSampleRate sampleRate: Double, channels: AVAudioChannelCount) {
        self.init(commonFormat: .pcmFormatFloat32, sampleRate: sampleRate, channels: channels, interleaved: false)
    }

    /// A format from an AVFoundation settings dictionary (`AVSampleRateKey`, `AVNumberOfChannelsKey`,
    /// `AVLinearPCMBitDepthKey`, `AVLinearPCMIsFloatKey`, `AVLinearPCMIsNonInterleaved`); nil when the
    /// settings describe something other than linear PCM this library handles.
    public convenience init?(settings: [String: Any]) {
        guard let description = try? LinearPCMSettings(settings) else { return nil }
        self.init(commonFormat: description.processingCommonFormat, sampleRate: description.sampleRate,
                  channels: description.channelCount, interleaved: !description.isNonInterleaved)
    }

    /// A format from Core Audio's description of linear PCM, as in AVFoundation: 16- or 32-bit signed integers or
    /// 32- or 64-bit floats, native-endian, packed, interleaved or not (`kAudioFormatFlagIsNonInterleaved`), with
    /// `mBytesPerFrame` and `mBytesPerPacket` matching. Nil for anything else, where Apple's makes a format of
    /// `.otherFormat` (compressed audio, 8- or 24-bit or big-endian samples), which this library cannot hold.
    public convenience init?(streamDescription asbd: UnsafePointer<AudioStreamBasicDescription>) {
        let description = asbd.pointee
        guard let layout = description.linearPCMLayout else { return nil }
        self.init(commonFormat: layout.commonFormat, sampleRate: description.mSampleRate,
                  channels: description.mChannelsPerFrame, interleaved: layout.interleaved)
    }

    /// Core Audio's description of the format, as in AVFoundation: `kAudioFormatLinearPCM`, native-endian packed
    /// samples (`kAudioFormatFlagIsFloat` or `kAudioFormatFlagIsSignedInteger`, and `kAudioFormatFlagIsNonInterleaved`
    /// when deinterleaved, mono included), one frame per packet, `mBytesPerFrame` counting every channel when
    /// interleaved and one when not. Valid as long as the format; read-only.
    public var streamDescription: UnsafePointer<AudioStreamBasicDescription> { UnsafePointer(streamDescriptionStorage) }

    /// Whether this is the standard format: Float32, deinterleaved.
    public var isStandard: Bool { commonFormat == .pcmFormatFloat32 && !isInterleaved }

    /// The format as an AVFoundation settings dictionary.
    public var settings: [String: Any] {
        [
            AVFormatIDKey: kAudioFormatLinearPCM,
            AVSampleRateKey: sampleRate,
            AVNumberOfChannelsKey: Int(channelCount),
            AVLinearPCMBitDepthKey: commonFormat.bytesPerSample * 8,
            AVLinearPCMIsFloatKey: commonFormat == .pcmFormatFloat32 || commonFormat == .pcmFormatFloat64,
            AVLinearPCMIsBigEndianKey: false,
            AVLinearPCMIsNonInterleaved: !isInterleaved,
        ]
    }

    /// Whether two formats describe the same audio: interleaving does not matter for mono.
    public static func == (lhs: AVAudioFormat, rhs: AVAudioFormat) -> Bool {
        lhs.commonFormat == rhs.commonFormat && lhs.sampleRate == rhs.sampleRate
            && lhs.channelCount == rhs.channelCount && (lhs.isInterleaved == rhs.isInterleaved || lhs.channelCount == 1)
    }

    /// Hashes the format consistently with `==` (mono formats hash alike whatever their interleaving).
    public func hash(into hasher: inout Hasher) {
        hasher.combine(commonFormat)
        hasher.combine(sampleRate)
        hasher.combine(channelCount)
        hasher.combine(channelCount == 1 ? false : isInterleaved)
    }

    /// The sample type, rate, channel count and layout, for debugging.
    public var description: String {
        let type = switch commonFormat {
        case .pcmFormatFloat32: "Float32"
        case .pcmFormatFloat64: "Float64"
        case .pcmFormatInt16: "Int16"
        case .pcmFormatInt32: "Int32"
        case .otherFormat: "other"
        }
        return "\(channelCount) ch, \(sampleRate) Hz, \(type)\(channelCount > 1 ? (isInterleaved ? ", interleaved" : ", deinterleaved") : "")"
    }
}
