import Foundation
@testable import SpeechAudio
import Testing
import TestSupport

/// A mono PCM WAV at 16 kHz (the corpus copies, `ffmpeg -f wav` output, what recorders and pipelines write) is read
/// without FFmpeg: the same samples, bit for bit, and the same description as FFmpeg gives; anything else is FFmpeg's.
@Suite struct DirectWAVReadingTests {
    static let clip = Corpus.item("1089-134686-0002")!.wav16kURL
    static let folder: URL = try! makeTemporaryDirectory("openspeech-direct-wav")

    /// `clip` rewritten by the ffmpeg tool with `arguments` (a LIST chunk before the data, as ffmpeg writes).
    static func converted(_ name: String, _ arguments: [String]) throws -> URL {
        let url = folder.appendingPathComponent(name)
        try runCommand("ffmpeg", ["-hide_banner", "-loglevel", "error", "-y", "-i", clip.path] + arguments + [url.path])
        return url
    }

    /// Every sample of `url` and what is said of it, read directly (`true`) or through FFmpeg.
    static func read(_ url: URL, directly: Bool, toleratingTruncation: Bool = false, chunk: Int = 1 << 16) throws
        -> (samples: [Float], source: AudioSourceInfo, declared: Double?, truncation: AudioTruncation?, direct: Bool) {
        let reader = try MonoAudioReader(url: url, sampleRate: 16_000, toleratingTruncation: toleratingTruncation,
                                         chunkSamples: chunk, readingWAVDirectly: directly)
        var samples: [Float] = []
        while case let piece = try reader.read(), !piece.isEmpty { samples += piece }
        return (samples, reader.source, reader.declaredDuration, reader.truncation, reader.readsWAVDirectly)
    }

    static func expectSame(_ url: URL, toleratingTruncation: Bool = false, chunk: Int = 1 << 16) throws {
        let direct = try read(url, directly: true, toleratingTruncation: toleratingTruncation, chunk: chunk)
        let ffmpeg = try read(url, directly: false, toleratingTruncation: toleratingTruncation)
        #expect(direct.direct && !ffmpeg.direct, "\(url.lastPathComponent) read directly")
        #expect(direct.samples.count == ffmpeg.samples.count, "\(url.lastPathComponent)")
        #expect(direct.samples.map(\.bitPattern) == ffmpeg.samples.map(\.bitPattern), "\(url.lastPathComponent)")
        #expect(direct.source == ffmpeg.source, "\(url.lastPathComponent)")
        #expect(direct.declared == ffmpeg.declared && direct.truncation == ffmpeg.truncation, "\(url.lastPathComponent)")
    }

    @Test("corpus WAVs, and 24-bit, 32-bit, float and streamed (open-sized) ones: FFmpeg's samples and description, whatever the chunk size")
    func sameAsFFmpeg() throws {
        for id in ["jfk", "1089-134686-0002", "ls-other-chapter-7902-96592"] {
            try Self.expectSame(try #require(Corpus.item(id)).wav16kURL)
        }
        try Self.expectSame(Self.clip, chunk: 1_000)
        // ffmpeg writes samples wider than 16 bits in the extensible form...
        for (name, codec) in [("s24.wav", "pcm_s24le"), ("s32.wav", "pcm_s32le"), ("f32.wav", "pcm_f32le")] {
            try Self.expectSame(try Self.converted(name, ["-c:a", codec]))
        }
        // ... most recorders and libraries with a plain header (format tag 1 or 3), as our own writer does.
        let samples = try MonoAudio.load(contentsOf: Self.clip)
        for (name, bits, float) in [("plain-s24.wav", 24, false), ("plain-s32.wav", 32, false), ("plain-f32.wav", 32, true)] {
            let url = Self.folder.appendingPathComponent(name)
            let file = try AVAudioFile(forWriting: url, settings: [
                AVFormatIDKey: kAudioFormatLinearPCM, AVSampleRateKey: 16_000.0, AVNumberOfChannelsKey: 1,
                AVLinearPCMBitDepthKey: bits, AVLinearPCMIsFloatKey: float,
            ])
            let buffer = try #require(AVAudioPCMBuffer(pcmFormat: file.processingFormat,
                                                       frameCapacity: AVAudioFrameCount(samples.count)))
            samples.withUnsafeBufferPointer { buffer.floatChannelData![0].update(from: $0.baseAddress!, count: $0.count) }
            buffer.frameLength = AVAudioFrameCount(samples.count)
            try file.write(from: buffer)
            file.close()
            try Self.expectSame(url)
        }
        // ffmpeg writing to a pipe cannot go back to fill the sizes in: the data runs to the end of the file.
        let streamed = Self.folder.appendingPathComponent("streamed.wav")
        try runCommand("sh", ["-c", "ffmpeg -hide_banner -loglevel error -i '\(Self.clip.path)' -f wav - | cat > '\(streamed.path)'"])
        try Self.expectSame(streamed)
        #expect(try Self.read(streamed, directly: true).declared == nil)
    }

    @Test("a WAV cut short: the same samples and truncation as FFmpeg when tolerated, the same error when not")
    func truncated() throws {
        let whole = try Data(contentsOf: Self.clip)
        let cut = Self.folder.appendingPathComponent("cut.wav")
        try whole.prefix(whole.count / 2 + 1).write(to: cut) // an odd byte: half a sample at the end
        try Self.expectSame(cut, toleratingTruncation: true)
        #expect(try Self.read(cut, directly: true, toleratingTruncation: true).truncation != nil)
        func failure(_ directly: Bool) -> String {
            do { _ = try Self.read(cut, directly: directly); return "no error" } catch { return "\(error)" }
        }
        #expect(failure(true) == failure(false) && failure(true).contains("truncated"), "\(failure(true))")
    }

    @Test("stereo, another rate, 8-bit and RF64 WAVs, and other formats, go through FFmpeg")
    func othersAreFFmpegs() throws {
        let others = [
            try Self.converted("stereo.wav", ["-ac", "2", "-c:a", "pcm_s16le"]),
            try Self.converted("8k.wav", ["-ar", "8000", "-c:a", "pcm_s16le"]),
            try Self.converted("u8.wav", ["-c:a", "pcm_u8"]),
            try Self.converted("rf64.wav", ["-c:a", "pcm_s16le", "-rf64", "always"]),
            try Self.converted("clip.flac", ["-c:a", "flac"]),
        ]
        for url in others {
            let direct = try Self.read(url, directly: true)
            #expect(!direct.direct && !direct.samples.isEmpty, "\(url.lastPathComponent)")
        }
        // Not audio: FFmpeg's errors, as before.
        let text = Self.folder.appendingPathComponent("notes.wav")
        try Data("RIFF, but not a WAVE file at all".utf8).write(to: text)
        #expect(throws: AudioError.self) { try Self.read(text, directly: true) }
    }
}
