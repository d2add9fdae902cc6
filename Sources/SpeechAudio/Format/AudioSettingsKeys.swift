/// AVFoundation's audio settings keys, with Apple's spelling, for `AVAudioFile(forWriting:settings:)` and
/// `AVAudioFormat(settings:)`.
public let AVFormatIDKey = "AVFormatIDKey"
/// The sample rate in hertz, a number; required by ours.
public let AVSampleRateKey = "AVSampleRateKey"
/// The channel count, a whole number from 1 to 64 here; 1 when absent.
public let AVNumberOfChannelsKey = "AVNumberOfChannelsKey"
/// Bits per sample: 16, 24 or 32 for integers, 32 or 64 for floats here.
public let AVLinearPCMBitDepthKey = "AVLinearPCMBitDepthKey"
/// Whether samples are floating point; false when absent.
public let AVLinearPCMIsFloatKey = "AVLinearPCMIsFloatKey"
/// Whether samples are big-endian; ours refuses true, since WAV is little-endian.
public let AVLinearPCMIsBigEndianKey = "AVLinearPCMIsBigEndianKey"
/// Whether each channel lies in its own buffer; false when absent.
public let AVLinearPCMIsNonInterleaved = "AVLinearPCMIsNonInterleaved"

/// Core Audio's format identifier of linear PCM ('lpcm').
public let kAudioFormatLinearPCM: UInt32 = 0x6C70_636D

/// A settings dictionary read into typed fields; throws on what this library cannot write or process.
struct LinearPCMSettings {
    var sampleRate: Double
    var channelCount: AVAudioChannelCount
    var bitDepth: Int
    var isFloat: Bool
    var isNonInterleaved: Bool

    init(_ settings: [String: Any]) throws(AudioError) {
        if let formatID = settings[AVFormatIDKey] {
            let id = (formatID as? UInt32) ?? (formatID as? Int).map { UInt32(truncatingIfNeeded: $0) }
            guard id == kAudioFormatLinearPCM else {
                throw .invalidSettings("only linear PCM (kAudioFormatLinearPCM) can be written; got format ID \(formatID)")
            }
        }
        func number(_ key: String) -> Double? {
            switch settings[key] {
            case let value as Double: value
            case let value as Float: Double(value)
            case let value as Int: Double(value)
            case let value as UInt32: Double(value)
            case let value as Int32: Double(value)
            default: nil
            }
        }
        guard let rate = number(AVSampleRateKey), rate.isFinite, rate >= 1, rate <= 1_000_000 else {
            throw .invalidSettings("AVSampleRateKey must be a sample rate between 1 and 1000000 Hz")
        }
        let channels = number(AVNumberOfChannelsKey) ?? 1
        guard channels >= 1, channels <= 64, channels == channels.rounded() else {
            throw .invalidSettings("AVNumberOfChannelsKey must be a whole number from 1 to 64")
        }
        let isFloat = settings[AVLinearPCMIsFloatKey] as? Bool ?? false
        let depth = Int(number(AVLinearPCMBitDepthKey) ?? (isFloat ? 32 : 16))
        guard isFloat ? [32, 64].contains(depth) : [16, 24, 32].contains(depth) else {
            throw .invalidSettings("AVLinearPCMBitDepthKey \(depth) is not supported: use 16, 24 or 32 for integers, 32 or 64 for floats")
        }
        if settings[AVLinearPCMIsBigEndianKey] as? Bool == true {
            throw .invalidSettings("big-endian linear PCM cannot be written to WAV; set AVLinearPCMIsBigEndianKey to false")
        }
        sampleRate = rate
        channelCount = AVAudioChannelCount(channels)
        bitDepth = depth
        self.isFloat = isFloat
        isNonInterleaved = settings[AVLinearPCMIsNonInterleaved] as? Bool ?? false
    }

    /// The sample type an app would process this audio in, keeping the precision of the settings.
    var processingCommonFormat: AVAudioCommonFormat {
        switch (isFloat, bitDepth) {
        case (true, 64): .pcmFormatFloat64
        case (true, _): .pcmFormatFloat32
        case (false, 16): .pcmFormatInt16
        default: .pcmFormatInt32
        }
    }
}
