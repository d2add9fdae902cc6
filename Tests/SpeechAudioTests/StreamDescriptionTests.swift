// `AVAudioFormat.streamDescription` and `AVAudioFormat(streamDescription:)`: Core Audio's description of every format
// the package holds, and back (issue 47).
import SpeechAudio
import Testing

@Suite struct StreamDescriptionTests {
    static let commonFormats: [AVAudioCommonFormat] = [.pcmFormatInt16, .pcmFormatInt32, .pcmFormatFloat32, .pcmFormatFloat64]

    static var supportedFormats: [AVAudioFormat] {
        commonFormats.flatMap { common in
            [8_000.0, 16_000, 44_100, 48_000].flatMap { rate in
                [1, 2, 6].flatMap { (channels: AVAudioChannelCount) in
                    [true, false].map { AVAudioFormat(commonFormat: common, sampleRate: rate, channels: channels, interleaved: $0)! }
                }
            }
        }
    }

    @Test("every supported format round-trips through its description, interleaving included")
    func roundTrips() throws {
        for format in Self.supportedFormats {
            let back = try #require(AVAudioFormat(streamDescription: format.streamDescription), "\(format)")
            #expect(back == format && back.isInterleaved == format.isInterleaved, "\(format) came back as \(back)")
            let (a, b) = (format.streamDescription.pointee, back.streamDescription.pointee)
            #expect(a.mSampleRate == b.mSampleRate && a.mFormatID == b.mFormatID && a.mFormatFlags == b.mFormatFlags
                        && a.mBytesPerPacket == b.mBytesPerPacket && a.mFramesPerPacket == b.mFramesPerPacket
                        && a.mBytesPerFrame == b.mBytesPerFrame && a.mChannelsPerFrame == b.mChannelsPerFrame
                        && a.mBitsPerChannel == b.mBitsPerChannel && a.mReserved == b.mReserved, "\(format)")
        }
    }

    @Test("the description's fields agree with the format's sample type, rate, channels and interleaving")
    func fieldsMatchTheFormat() {
        for format in Self.supportedFormats {
            let description = format.streamDescription.pointee
            let bytes = UInt32(format.commonFormat.bytesPerSample)
            let isFloat = format.commonFormat == .pcmFormatFloat32 || format.commonFormat == .pcmFormatFloat64
            let frameBytes = format.isInterleaved ? bytes * format.channelCount : bytes
            #expect(description.mSampleRate == format.sampleRate)
            #expect(description.mFormatID == kAudioFormatLinearPCM)
            #expect(description.mFormatFlags == (isFloat ? kAudioFormatFlagIsFloat : kAudioFormatFlagIsSignedInteger)
                        | kAudioFormatFlagIsPacked | (format.isInterleaved ? 0 : kAudioFormatFlagIsNonInterleaved))
            #expect(description.mBytesPerFrame == frameBytes && description.mBytesPerPacket == frameBytes)
            #expect(description.mFramesPerPacket == 1 && description.mReserved == 0)
            #expect(description.mChannelsPerFrame == format.channelCount && description.mBitsPerChannel == bytes * 8)
        }
        // Apple's values for the two formats speech code meets most: the standard format and 16-bit mono.
        // (The pointer lives as long as its format, so the format is held in a variable, as with Apple's.)
        let standardFormat = AVAudioFormat(standardFormatWithSampleRate: 16_000, channels: 1)!
        let standard = standardFormat.streamDescription.pointee
        #expect(standard.mFormatFlags == 41 && standard.mBytesPerFrame == 4)
        #expect(kAudioFormatFlagsNativeFloatPacked | kAudioFormatFlagIsNonInterleaved == 41)
        let int16 = AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: 16_000, channels: 2, interleaved: true)!
        #expect(int16.streamDescription.pointee.mFormatFlags == 12 && int16.streamDescription.pointee.mBytesPerFrame == 4)
    }

    @Test("the description stays at one address for the format's life")
    func stablePointer() {
        let format = AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: 16_000, channels: 1, interleaved: true)!
        #expect(format.streamDescription == format.streamDescription)
    }

    @Test("descriptions as clients write them by hand make the formats they mean")
    func handWrittenDescriptions() throws {
        // 16-bit mono, as a socket or pipe reader writes it (packed flag or not: the samples fill their bytes).
        for flags in [kLinearPCMFormatFlagIsSignedInteger | kLinearPCMFormatFlagIsPacked, kAudioFormatFlagIsSignedInteger] {
            var description = AudioStreamBasicDescription(
                mSampleRate: 16_000, mFormatID: kAudioFormatLinearPCM, mFormatFlags: flags, mBytesPerPacket: 2,
                mFramesPerPacket: 1, mBytesPerFrame: 2, mChannelsPerFrame: 1, mBitsPerChannel: 16, mReserved: 0)
            let format = try #require(AVAudioFormat(streamDescription: &description))
            #expect(format.commonFormat == .pcmFormatInt16 && format.sampleRate == 16_000 && format.channelCount == 1)
        }
        // Deinterleaved stereo floats, filled in field by field from a zeroed description.
        var floats = AudioStreamBasicDescription()
        floats.mSampleRate = 48_000
        floats.mFormatID = kAudioFormatLinearPCM
        floats.mFormatFlags = kAudioFormatFlagIsFloat | kAudioFormatFlagsNativeEndian | kAudioFormatFlagIsPacked
            | kAudioFormatFlagIsNonInterleaved
        floats.mChannelsPerFrame = 2
        floats.mBitsPerChannel = 32
        floats.mBytesPerFrame = 4
        floats.mBytesPerPacket = 4
        floats.mFramesPerPacket = 1
        let format = try #require(AVAudioFormat(streamDescription: &floats))
        #expect(format == AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!)
    }

    @Test("what the package cannot hold is refused, not misread")
    func refusals() {
        let int16 = AudioStreamBasicDescription(
            mSampleRate: 16_000, mFormatID: kAudioFormatLinearPCM,
            mFormatFlags: kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked, mBytesPerPacket: 4,
            mFramesPerPacket: 1, mBytesPerFrame: 4, mChannelsPerFrame: 2, mBitsPerChannel: 16, mReserved: 0)
        var cases: [(String, AudioStreamBasicDescription)] = []
        func with(_ name: String, _ change: (inout AudioStreamBasicDescription) -> Void) {
            var description = int16
            change(&description)
            cases.append((name, description))
        }
        with("compressed (AAC)") { $0.mFormatID = 0x6161_6320; $0.mFramesPerPacket = 1024; $0.mBytesPerPacket = 0 }
        with("big-endian") { $0.mFormatFlags |= kAudioFormatFlagIsBigEndian }
        with("unsigned 8-bit") { $0.mFormatFlags = kAudioFormatFlagIsPacked; $0.mBitsPerChannel = 8; $0.mBytesPerFrame = 2; $0.mBytesPerPacket = 2 }
        with("24-bit packed") { $0.mBitsPerChannel = 24; $0.mBytesPerFrame = 6; $0.mBytesPerPacket = 6 }
        with("fixed point") { $0.mFormatFlags |= 8 << kLinearPCMFormatFlagsSampleFractionShift }
        with("bytes per frame of one channel, interleaved") { $0.mBytesPerFrame = 2; $0.mBytesPerPacket = 2 }
        with("bytes per packet apart from bytes per frame") { $0.mBytesPerPacket = 8 }
        with("no channels") { $0.mChannelsPerFrame = 0; $0.mBytesPerFrame = 0; $0.mBytesPerPacket = 0 }
        with("no rate") { $0.mSampleRate = 0 }
        with("unknown sample type") { $0.mFormatFlags = kAudioFormatFlagIsPacked }
        for (name, description) in cases {
            var copy = description
            #expect(AVAudioFormat(streamDescription: &copy) == nil, "\(name)")
        }
    }
}
