// AVURLAsset and AVAssetExportSession over FFmpeg: durations as the container says, and audio converted to AAC
// (.m4a) that decodes back to the same sound, whole or a time range, never leaving a half-written file.
import Foundation
@testable import SpeechAudio
import Testing
import TestSupport

@Suite(.serialized) struct AssetExportTests {
    static let folder: URL = try! makeTemporaryDirectory("openspeech-asset-export")

    /// RMS energy per 50 ms of a mono mix.
    static func envelope(_ samples: [Float], rate: Double) -> [Float] {
        let size = Int(rate / 20)
        return stride(from: 0, to: samples.count - size, by: size).map { start in
            (samples[start..<start + size].reduce(0) { $0 + $1 * $1 } / Float(size)).squareRoot()
        }
    }

    static func correlation(_ a: [Float], _ b: [Float]) -> Float {
        let n = min(a.count, b.count)
        let (a, b) = (Array(a.prefix(n)), Array(b.prefix(n)))
        let (ma, mb) = (a.reduce(0, +) / Float(n), b.reduce(0, +) / Float(n))
        var (sab, saa, sbb): (Float, Float, Float) = (0, 0, 0)
        for i in 0..<n {
            sab += (a[i] - ma) * (b[i] - mb)
            saa += (a[i] - ma) * (a[i] - ma)
            sbb += (b[i] - mb) * (b[i] - mb)
        }
        return sab / (saa * sbb).squareRoot()
    }

    @Test func assetDurationAndTracks() async throws {
        let clip = Corpus.item("jfk")!
        let asset = AVURLAsset(url: clip.originalURL)
        let duration = try await asset.load(.duration)
        #expect(abs(duration.seconds - clip.durationSeconds) < 0.05)
        let (again, tracks) = try await asset.load(.duration, .tracks)
        #expect(again == duration)
        #expect(tracks.count == 1 && tracks[0].mediaType == .audio && tracks[0].naturalTimeScale == 44_100)
        // FLAC streams declare no bit rate; the container's (ffprobe: 838322 b/s) stands in.
        #expect(abs(tracks[0].estimatedDataRate - 838_322) < 1_000)
        #expect(try await asset.loadTracks(withMediaType: .video).isEmpty)
        #expect(try await asset.load(.isPlayable))
        #expect(abs(asset.duration.seconds - clip.durationSeconds) < 0.05)

        let missing = AVURLAsset(url: Self.folder.appendingPathComponent("missing.wav"))
        await #expect(throws: AudioError.self) { try await missing.load(.duration) }
        #expect(try await missing.load(.isPlayable) == false)
        #expect(!missing.duration.isValid)
    }

    @Test func exportsTheAudioAsAACInM4A() async throws {
        let clip = Corpus.item("jfk")! // 44.1 kHz stereo flac
        let output = Self.folder.appendingPathComponent("jfk.m4a")
        let session = try #require(AVAssetExportSession(asset: AVURLAsset(url: clip.originalURL), presetName: AVAssetExportPresetAppleM4A))
        #expect(session.supportedFileTypes == [.m4a])
        try await session.export(to: output, as: .m4a)
        #expect(session.status == .completed && session.progress == 1)

        let decoder = try FFmpegAudioDecoder(url: output)
        #expect(decoder.info.codec == "aac" && decoder.info.sampleRate == 44_100 && decoder.info.channelCount == 2)
        let original = try MonoAudio.load(contentsOf: clip.originalURL), exported = try MonoAudio.load(contentsOf: output)
        #expect(abs(exported.count - original.count) < 2_048, "\(exported.count) vs \(original.count) samples")
        let similarity = Self.correlation(Self.envelope(original, rate: 16_000), Self.envelope(exported, rate: 16_000))
        #expect(similarity > 0.98, "envelope correlation \(similarity)")
        #expect(try await AVURLAsset(url: output).load(.duration).seconds > clip.durationSeconds - 0.1)
    }

    @Test func exportsATimeRangeWithTheCompletionHandler() async throws {
        let clip = Corpus.item("jfk")!
        let output = Self.folder.appendingPathComponent("jfk-range.mp4")
        let session = try #require(AVAssetExportSession(asset: AVURLAsset(url: clip.originalURL), presetName: AVAssetExportPresetMediumQuality))
        session.outputURL = output
        session.outputFileType = .mp4
        session.timeRange = CMTimeRange(start: CMTime(seconds: 2, preferredTimescale: 1000), duration: CMTime(seconds: 3, preferredTimescale: 1000))
        await withCheckedContinuation { continuation in session.exportAsynchronously { continuation.resume() } }
        #expect(session.status == .completed, "\(String(describing: session.error))")
        let samples = try MonoAudio.load(contentsOf: output)
        #expect(abs(Double(samples.count) / 16_000 - 3) < 0.1)
        let original = Array(try MonoAudio.load(contentsOf: clip.originalURL)[32_000..<80_000])
        #expect(Self.correlation(Self.envelope(original, rate: 16_000), Self.envelope(samples, rate: 16_000)) > 0.95)
    }

    @Test func failuresLeaveTheDestinationAsItWas() async throws {
        let clip = Corpus.item("jfk")!
        let output = Self.folder.appendingPathComponent("kept.m4a")
        try Data("old".utf8).write(to: output)
        let asset = AVURLAsset(url: clip.originalURL)
        #expect(AVAssetExportSession(asset: asset, presetName: AVAssetExportPresetPassthrough) == nil)

        let wrongType = try #require(AVAssetExportSession(asset: asset, presetName: AVAssetExportPresetAppleM4A))
        await #expect(throws: AudioError.self) { try await wrongType.export(to: output, as: .wav) }
        #expect(wrongType.status == .failed && "\(wrongType.error!)".contains("outputFileType"))

        let unreadable = try #require(AVAssetExportSession(asset: AVURLAsset(url: Self.folder.appendingPathComponent("none.flac")),
                                                           presetName: AVAssetExportPresetAppleM4A))
        await #expect(throws: AudioError.self) { try await unreadable.export(to: output, as: .m4a) }

        let unwritable = try #require(AVAssetExportSession(asset: asset, presetName: AVAssetExportPresetAppleM4A))
        await #expect(throws: AudioError.self) {
            try await unwritable.export(to: URL(fileURLWithPath: "/nonexistent-folder/out.m4a"), as: .m4a)
        }

        let cancelled = try #require(AVAssetExportSession(asset: asset, presetName: AVAssetExportPresetAppleM4A))
        cancelled.cancelExport()
        await #expect(throws: CancellationError.self) { try await cancelled.export(to: output, as: .m4a) }
        #expect(cancelled.status == .cancelled)

        #expect(try String(contentsOf: output, encoding: .utf8) == "old")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path).filter { $0.hasSuffix(".partial") }
        #expect(leftovers.isEmpty, "\(leftovers)")
    }
}
