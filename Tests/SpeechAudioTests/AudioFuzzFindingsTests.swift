import Foundation
import SpeechAudio
import Testing
import TestSupport

/// Inputs the fuzz targets `wav-header` and `audio-file` (scripts/fuzz) found crashing, minimized: each is now a
/// typed error or an answer, never a trap.
@Suite struct AudioFuzzFindingsTests {
    static let folder: URL = try! makeTemporaryDirectory("openspeech-audio-fuzz-findings")

    /// A 16-bit PCM WAV with `channels` channels of 160 silent frames.
    private func wav(channels: UInt16) -> Data {
        var bytes = Data()
        func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) } }
        func u16(_ v: UInt16) { withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) } }
        let dataBytes = UInt32(channels) * 2 * 160
        bytes.append(contentsOf: Array("RIFF".utf8)); u32(36 + dataBytes); bytes.append(contentsOf: Array("WAVEfmt ".utf8))
        u32(16); u16(1); u16(channels); u32(16000); u32(16000 * 2 * UInt32(channels)); u16(2 * channels); u16(16)
        bytes.append(contentsOf: Array("data".utf8)); u32(dataBytes)
        return bytes + Data(count: Int(dataBytes))
    }

    @Test("a fmt chunk cut inside its block alignment declares no frames (was: an index trap in the WAV header reader)")
    func fmtChunkCutShort() throws {
        // wav-header's minimized crash: the header ends two bytes into the fmt chunk's block alignment field.
        let bytes = Data([0x52, 0x49, 0x46, 0x46, 0xff, 0xff, 0xff, 0xff, 0x57, 0x41, 0x56, 0x45, 0x66, 0x6d, 0x74, 0x20,
                          0x10, 0x00, 0x00, 0x26, 0xff, 0x00, 0x01, 0x00, 0x80, 0x3e, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7a,
                          0x7f, 0x1a])
        let url = Self.folder.appendingPathComponent("fmt-cut.wav")
        try bytes.write(to: url)
        #expect(wavDeclaredFrames(url) == nil)
    }

    @Test("a WAV of 100 channels is a typed error naming the file (was: a force unwrap of the format)")
    func tooManyChannels() throws {
        let url = Self.folder.appendingPathComponent("100-channels.wav")
        try wav(channels: 100).write(to: url)
        #expect {
            _ = try AVAudioFile(forReading: url)
        } throws: { error in
            guard let error = error as? AudioError, case .unsupportedCodec = error else { return false }
            return error.description.contains(url.path) && error.description.contains("100 channels")
        }
        #expect(throws: AudioError.self) { _ = try MonoAudio.load(contentsOf: url) }
    }

    @Test("a WAV of 64 channels, the most a format holds, still reads")
    func sixtyFourChannels() throws {
        let url = Self.folder.appendingPathComponent("64-channels.wav")
        try wav(channels: 64).write(to: url)
        let file = try AVAudioFile(forReading: url)
        #expect(file.processingFormat.channelCount == 64)
        #expect(file.length == 160)
    }

    @Test("a WAV whose INFO tag declares 1.8 GB is a typed error, without allocating it (was: 5 s and 1.6 GB)")
    func infoTagOfGigabytes() throws {
        // audio-file's minimized slow input: 46 channels of 8-bit audio, a LIST chunk of 4 GB, an ISFT tag of 1.8 GB.
        let bytes = Data([0x52, 0x49, 0x46, 0x46, 0xff, 0xff, 0xff, 0xff, 0x57, 0x41, 0x56, 0x45, 0x66, 0x6d, 0x74, 0x20,
                          0x10, 0x00, 0x00, 0x00, 0x01, 0x00, 0x2e, 0x00, 0x40, 0x1f, 0x00, 0x00, 0x40, 0x1f, 0x00, 0x00,
                          0x01, 0x00, 0x08, 0x00, 0x4c, 0x49, 0x53, 0x54, 0x1a, 0x00, 0x00, 0xfa, 0x49, 0x4e, 0x46, 0x4f,
                          0x49, 0x53, 0x46, 0x54, 0x72, 0x65, 0x6d, 0x61, 0x4c, 0x61, 0x76, 0x46, 0x35, 0x38, 0x2e, 0x32,
                          0x37, 0x2e, 0x31, 0x30, 0x30, 0x00, 0x64, 0x61, 0x74, 0x61, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
                          0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
                          0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                          0xff, 0xff, 0xff, 0xff, 0xff, 0xf8, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                          0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xbf, 0xbb, 0xb1, 0xb7, 0xff, 0x41, 0xff,
                          0x5e, 0x49, 0xe2, 0xff, 0xe3, 0xff, 0x7d, 0x80, 0x80, 0x80])
        let url = Self.folder.appendingPathComponent("huge-info-tag.wav")
        try bytes.write(to: url)
        // CPU time of this thread: zeroing 1.8 GB takes seconds of it whatever else the machine runs; refusing, ms.
        func threadCPUSeconds() -> Double {
            var time = timespec()
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
            return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
        }
        let start = threadCPUSeconds()
        #expect {
            _ = try AVAudioFile(forReading: url)
        } throws: { error in
            (error as? AudioError)?.description.contains(url.path) == true
        }
        #expect(threadCPUSeconds() - start < 0.5)
    }
}
