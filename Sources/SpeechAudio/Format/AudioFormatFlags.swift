// Core Audio's format flags (`CoreAudioTypes`), with Apple's names and values, for `AudioStreamBasicDescription`.

/// Samples are floating point (else integers).
public let kAudioFormatFlagIsFloat: AudioFormatFlags = 1 << 0
/// Samples are big-endian (else little-endian).
public let kAudioFormatFlagIsBigEndian: AudioFormatFlags = 1 << 1
/// Integer samples are signed.
public let kAudioFormatFlagIsSignedInteger: AudioFormatFlags = 1 << 2
/// Samples fill their bytes with no padding bits.
public let kAudioFormatFlagIsPacked: AudioFormatFlags = 1 << 3
/// Samples that do not fill their bytes sit in the high bits.
public let kAudioFormatFlagIsAlignedHigh: AudioFormatFlags = 1 << 4
/// Each channel lies in its own buffer.
public let kAudioFormatFlagIsNonInterleaved: AudioFormatFlags = 1 << 5
/// The stream cannot be mixed.
public let kAudioFormatFlagIsNonMixable: AudioFormatFlags = 1 << 6
/// No flag is set (said explicitly).
public let kAudioFormatFlagsAreAllClear: AudioFormatFlags = 0x8000_0000

/// This machine's byte order: 0 on little-endian machines, `kAudioFormatFlagIsBigEndian` on big-endian ones.
#if _endian(big)
public let kAudioFormatFlagsNativeEndian: AudioFormatFlags = kAudioFormatFlagIsBigEndian
#else
public let kAudioFormatFlagsNativeEndian: AudioFormatFlags = 0
#endif
/// Native-endian packed floats: the flags of `AVAudioFormat`'s standard formats but for interleaving.
public let kAudioFormatFlagsNativeFloatPacked: AudioFormatFlags =
    kAudioFormatFlagIsFloat | kAudioFormatFlagsNativeEndian | kAudioFormatFlagIsPacked

/// `kAudioFormatFlagIsFloat` under its linear PCM name.
public let kLinearPCMFormatFlagIsFloat = kAudioFormatFlagIsFloat
/// `kAudioFormatFlagIsBigEndian` under its linear PCM name.
public let kLinearPCMFormatFlagIsBigEndian = kAudioFormatFlagIsBigEndian
/// `kAudioFormatFlagIsSignedInteger` under its linear PCM name.
public let kLinearPCMFormatFlagIsSignedInteger = kAudioFormatFlagIsSignedInteger
/// `kAudioFormatFlagIsPacked` under its linear PCM name.
public let kLinearPCMFormatFlagIsPacked = kAudioFormatFlagIsPacked
/// `kAudioFormatFlagIsAlignedHigh` under its linear PCM name.
public let kLinearPCMFormatFlagIsAlignedHigh = kAudioFormatFlagIsAlignedHigh
/// `kAudioFormatFlagIsNonInterleaved` under its linear PCM name.
public let kLinearPCMFormatFlagIsNonInterleaved = kAudioFormatFlagIsNonInterleaved
/// `kAudioFormatFlagIsNonMixable` under its linear PCM name.
public let kLinearPCMFormatFlagIsNonMixable = kAudioFormatFlagIsNonMixable
/// `kAudioFormatFlagsAreAllClear` under its linear PCM name.
public let kLinearPCMFormatFlagsAreAllClear = kAudioFormatFlagsAreAllClear
/// Where the fixed-point fraction bit count sits in the flags.
public let kLinearPCMFormatFlagsSampleFractionShift: AudioFormatFlags = 7
/// The fixed-point fraction bit count's bits (0: integer samples); OpenSpeech takes no fixed-point samples.
public let kLinearPCMFormatFlagsSampleFractionMask: AudioFormatFlags = 0x3F << kLinearPCMFormatFlagsSampleFractionShift
