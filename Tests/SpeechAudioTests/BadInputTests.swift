import Foundation
import SpeechAudio
import Testing
import TestSupport

/// Every kind of bad input gives a typed error naming the file and the problem; none crashes or hangs.
@Suite struct BadInputTests {
    static let folder: URL = try! makeTemporaryDirectory("openspeech-bad-audio")

    /// Opens and fully decodes, as `MonoAudio.load` does for transcription.
    func expectError(_ url: URL, _ matches: (AudioError) -> Bool) {
        for attempt in 0..<2 {
            do {
                if attempt == 0 {
                    _ = try MonoAudio.load(contentsOf: url)
                } else {
                    let file = try AVAudioFile(forReading: url)
                    let buffer = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: 1 << 16)!
                    repeat { try file.read(into: buffer) } while buffer.frameLength > 0
                }
                Issue.record("\(url.lastPathComponent) was accepted")
            } catch let error as AudioError {
                #expect(matches(error), "\(url.lastPathComponent): unexpected \(error)")
                #expect(error.description.contains(url.path), "message must name the file: \(error)")
            } catch {
                Issue.record("untyped error \(error)")
            }
        }
    }

    @Test func missingFile() {
        expectError(Self.folder.appendingPathComponent("nope.wav")) { if case .fileNotFound = $0 { true } else { false } }
    }

    @Test func directory() {
        expectError(Self.folder) { if case .notARegularFile = $0 { true } else { false } }
    }

    @Test("a symbolic link to a recording is read as the recording; a link to a folder or to nothing is refused")
    func symbolicLinks() throws {
        let clip = try #require(Corpus.item("jfk"))
        let link = Self.folder.appendingPathComponent("link-to-jfk.wav")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: clip.wav16kURL)
        #expect(try MonoAudio.load(contentsOf: link) == MonoAudio.load(contentsOf: clip.wav16kURL))
        let toFolder = Self.folder.appendingPathComponent("link-to-folder.wav")
        try FileManager.default.createSymbolicLink(at: toFolder, withDestinationURL: FileManager.default.temporaryDirectory)
        expectError(toFolder) { if case .notARegularFile = $0 { true } else { false } }
        let dangling = Self.folder.appendingPathComponent("link-to-nothing.wav")
        try FileManager.default.createSymbolicLink(at: dangling, withDestinationURL: Self.folder.appendingPathComponent("gone.wav"))
        expectError(dangling) { if case .fileNotFound = $0 { true } else { false } }
    }

    @Test func zeroByteFile() throws {
        let url = Self.folder.appendingPathComponent("empty.wav")
        try Data().write(to: url)
        expectError(url) { if case .emptyFile = $0 { true } else { false } }
    }

    @Test func randomBytes() throws {
        let url = Self.folder.appendingPathComponent("random.wav")
        var generator = SystemRandomNumberGenerator()
        try Data((0..<100_000).map { _ in UInt8.random(in: 0...255, using: &generator) }).write(to: url)
        expectError(url) {
            switch $0 {
            case .unrecognizedFormat, .corruptFile, .noAudioStream: true
            default: false
            }
        }
    }

    @Test func textFileNamedWav() throws {
        let url = Self.folder.appendingPathComponent("notes.wav")
        try Data(String(repeating: "This is not audio, just some notes.\n", count: 200).utf8).write(to: url)
        expectError(url) { if case .unrecognizedFormat = $0 { true } else { false } }
    }

    @Test func truncatedFiles() throws {
        for name in ["clip.wav", "clip.flac"] {
            let whole = Self.folder.appendingPathComponent(name)
            try runCommand("ffmpeg", ["-hide_banner", "-loglevel", "error", "-y", "-i",
                                      AudioFixtures.speech16k.path, whole.path])
            let data = try Data(contentsOf: whole)
            let cut = Self.folder.appendingPathComponent("truncated-" + name)
            try data.prefix(data.count / 3).write(to: cut)
            expectError(cut) { if case .corruptFile(_, let detail) = $0 { detail.contains("truncated") } else { false } }
        }
    }

    @Test func fileWithoutAudio() throws {
        let url = Self.folder.appendingPathComponent("silent-video.mp4")
        try runCommand("ffmpeg", ["-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                                  "color=c=red:s=32x32:r=5:d=1", "-c:v", "libx264", url.path])
        expectError(url) { if case .noAudioStream = $0 { true } else { false } }
    }

    @Test func unsupportedSampleFormatRequest() throws {
        #expect(AVAudioFormat(commonFormat: .otherFormat, sampleRate: 16_000, channels: 1, interleaved: false) == nil)
        #expect(throws: AudioError.self) {
            _ = try AVAudioFile(forReading: AudioFixtures.speech16k, commonFormat: .otherFormat, interleaved: false)
        }
        let file = try AVAudioFile(forReading: AudioFixtures.speech16k)
        let wrong = AVAudioPCMBuffer(pcmFormat: AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: 16_000,
                                                              channels: 1, interleaved: true)!, frameCapacity: 100)!
        #expect(throws: AudioError.self) { try file.read(into: wrong) }
        #expect(throws: AudioError.self) {
            _ = try AVAudioFile(forWriting: Self.folder.appendingPathComponent("x.wav"),
                                settings: [AVSampleRateKey: 16_000.0, AVLinearPCMBitDepthKey: 12])
        }
    }
}
