import Foundation
import TestSupport

/// Corpus recordings converted with the ffmpeg command-line tool into the containers and codecs users have,
/// made once per test run in a temporary folder.
enum AudioFixtures {
    struct Fixture: Sendable, CustomStringConvertible {
        let name: String
        let url: URL
        let isLossless: Bool
        var description: String { name }
    }

    /// A 16 kHz mono LibriSpeech clip, the 44.1 kHz stereo 24-bit JFK flac, and the 8 kHz Harvard sentences.
    static let speech16k = Corpus.item("1089-134686-0002")!.originalURL
    static let stereo44k = Corpus.item("jfk")!.originalURL
    static let narrowband8k = Corpus.directory.appendingPathComponent("audio/osr-us-000-0034-8k.wav")

    static let directory: URL = try! makeTemporaryDirectory("openspeech-audio-fixtures")

    /// (file name, ffmpeg arguments between input and output, lossless, needs a video stream)
    private static let recipes: [(String, [String], Bool, Bool)] = [
        ("s16-16k-mono.wav", ["-c:a", "pcm_s16le"], true, false),
        ("s16-8k-mono.wav", ["-ar", "8000", "-c:a", "pcm_s16le"], true, false),
        ("s16-44k-stereo.wav", ["-ar", "44100", "-ac", "2", "-c:a", "pcm_s16le"], true, false),
        ("s24-48k-stereo.wav", ["-ar", "48000", "-ac", "2", "-c:a", "pcm_s24le"], true, false),
        ("f32-48k-mono.wav", ["-ar", "48000", "-c:a", "pcm_f32le"], true, false),
        ("flac-44k-stereo.flac", ["-ar", "44100", "-ac", "2", "-c:a", "flac"], true, false),
        ("mp3-44k-stereo.mp3", ["-ar", "44100", "-ac", "2", "-c:a", "libmp3lame", "-b:a", "128k"], false, false),
        ("aac-48k-stereo.m4a", ["-ar", "48000", "-ac", "2", "-c:a", "aac", "-b:a", "128k"], false, false),
        ("vorbis-44k-mono.ogg", ["-ar", "44100", "-c:a", "libvorbis"], false, false),
        ("opus-48k-stereo.opus", ["-ar", "48000", "-ac", "2", "-c:a", "libopus"], false, false),
        ("video-h264-aac.mp4", ["-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-shortest"], false, true),
        ("video-h264-mp3.mkv", ["-c:v", "libx264", "-preset", "ultrafast", "-c:a", "libmp3lame", "-shortest"], false, true),
        ("video-vp8-vorbis.webm", ["-c:v", "libvpx", "-deadline", "realtime", "-c:a", "libvorbis", "-shortest"], false, true),
    ]

    /// Every recipe applied to the 16 kHz speech clip, plus the JFK original (44.1 kHz stereo 24-bit flac)
    /// and the 8 kHz narrow-band wav as they are.
    static let all: [Fixture] = {
        var fixtures = [
            Fixture(name: "jfk-original.flac", url: stereo44k, isLossless: true),
            Fixture(name: "osr-original-8k.wav", url: narrowband8k, isLossless: true),
        ]
        for (name, arguments, lossless, video) in recipes {
            let output = directory.appendingPathComponent(name)
            var command = ["-hide_banner", "-loglevel", "error", "-y"]
            if video { command += ["-f", "lavfi", "-i", "color=c=gray:s=64x48:r=10"] }
            command += ["-i", speech16k.path]
            if video { command += ["-map", "0:v", "-map", "1:a"] }
            try! runCommand("ffmpeg", command + arguments + [output.path])
            fixtures.append(Fixture(name: name, url: output, isLossless: lossless))
        }
        return fixtures
    }()

    /// ffmpeg's own decode of the first audio stream at its native rate and channels, per channel.
    static func ffmpegDecode(_ url: URL, extra: [String] = []) throws -> [[Float]] {
        let channels = try probeChannels(url)
        let result = try runCommand("ffmpeg", ["-hide_banner", "-loglevel", "error", "-i", url.path, "-map", "0:a:0"]
                                    + extra + ["-f", "f32le", "-c:a", "pcm_f32le", "-"])
        let count = result.stdout.count / 4
        let outChannels = extra.contains("-ac") ? Int(extra[extra.firstIndex(of: "-ac")! + 1])! : channels
        var planes = [[Float]](repeating: [], count: outChannels)
        result.stdout.withUnsafeBytes { raw in
            let samples = raw.bindMemory(to: Float.self)
            for channel in 0..<outChannels {
                planes[channel] = stride(from: channel, to: count, by: outChannels).map { samples[$0] }
            }
        }
        return planes
    }

    static func probeChannels(_ url: URL) throws -> Int {
        let out = try runCommand("ffprobe", ["-v", "error", "-select_streams", "a:0", "-show_entries",
                                             "stream=channels", "-of", "csv=p=0", url.path]).stdoutText
        return Int(out.trimmingCharacters(in: .whitespacesAndNewlines))!
    }

    /// The exact frame count of the first audio stream, counted by ffprobe decoding every frame.
    static func probeFrameCount(_ url: URL) throws -> Int {
        let out = try runCommand("ffprobe", ["-v", "error", "-select_streams", "a:0", "-show_entries",
                                             "frame=nb_samples", "-of", "csv=p=0", url.path]).stdoutText
        return out.split(whereSeparator: \.isNewline).compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
            .reduce(0, +)
    }
}
