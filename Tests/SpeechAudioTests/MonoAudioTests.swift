import Foundation
import SpeechAudio
import Testing
import TestSupport

/// The one path every layer above takes: any file to 16 kHz mono Float32.
@Suite struct MonoAudioTests {
    @Test(arguments: AudioFixtures.all)
    func loadsAnyFileAt16kMono(_ fixture: AudioFixtures.Fixture) throws {
        let samples = try MonoAudio.load(contentsOf: fixture.url)
        // ffmpeg's resampler with the same filter; channels averaged as faster-whisper's decoding does.
        let channels = try AudioFixtures.probeChannels(fixture.url)
        let mix = channels == 1 ? [] : ["-af", "pan=mono|c0=" + (0..<channels).map { "\(1.0 / Double(channels))*c\($0)" }
            .joined(separator: "+")]
        let reference = try AudioFixtures.ffmpegDecode(fixture.url, extra: mix + ["-ar", "16000", "-ac", "1"])[0]
        #expect(abs(samples.count - reference.count) <= 1, "\(fixture): \(samples.count) vs \(reference.count)")
        let count = min(samples.count, reference.count)
        #expect(maxDifference(Array(samples.prefix(count)), Array(reference.prefix(count))) < 1e-3, "\(fixture)")
    }

    @Test func timingIsExact() throws {
        // The 16 kHz corpus copy of the JFK clip has exactly the duration the manifest gives.
        let jfk = Corpus.item("jfk")!
        let samples = try MonoAudio.load(contentsOf: jfk.originalURL)
        #expect(samples.count == Int((jfk.durationSeconds * 16_000).rounded()))
    }
}
