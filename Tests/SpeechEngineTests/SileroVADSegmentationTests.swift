import Foundation
import Testing
@testable import SpeechEngine
import TestSupport

/// Speech regions from Silero VAD (and the energy fallback) against known speech boundaries.
@Suite("SileroVAD segmentation")
struct SileroVADSegmentationTests {
    @Test("regions on a clip with 3 s of silence each side start and end within 0.25 s of the speech",
          arguments: ["1089-134686-0002", "4507-16021-0012", "1995-1837-0001"])
    func sileroRegions(id: String) async throws {
        let model = try await SileroVADFixtures.model()
        let clip = try SileroVADFixtures.clip(id)
        let truth = energyBoundaries(clip)
        let audio = SileroVADFixtures.padded(clip, seconds: 3)
        let probabilities = model.makeStream().probabilities(of: audio)
        let regions = SpeechSegmenter.regions(probabilities: probabilities, totalSamples: audio.count)
        try #require(!regions.isEmpty)
        print("\(id): truth \(3 + truth.start)–\(3 + truth.end) s, regions \(regions)")
        #expect(abs(regions.first!.start - (3 + truth.start)) <= 0.25)
        #expect(abs(regions.last!.end - (3 + truth.end)) <= 0.25)
    }

    @Test("the energy fallback finds the same speech in silence")
    func energyRegions() throws {
        let clip = try SileroVADFixtures.clip("1089-134686-0002")
        let truth = energyBoundaries(clip)
        let audio = SileroVADFixtures.padded(clip, seconds: 3)
        let probabilities = EnergyVADStream().probabilities(of: audio)
        let regions = SpeechSegmenter.regions(
            probabilities: probabilities, totalSamples: audio.count,
            options: .init(minSilenceDuration: 0.5))
        try #require(!regions.isEmpty)
        print("energy: truth \(3 + truth.start)–\(3 + truth.end) s, regions \(regions)")
        #expect(abs(regions.first!.start - (3 + truth.start)) <= 0.25)
        #expect(abs(regions.last!.end - (3 + truth.end)) <= 0.25)
    }

    @Test("silence, steady noise and a steady tone give no speech with the energy fallback")
    func energyRejectsSteadySounds() {
        var generator = UInt32(7)
        let noise = (0..<160_000).map { _ -> Float in
            generator = generator &* 1_664_525 &+ 1_013_904_223
            return (Float(generator >> 8) / Float(1 << 24) - 0.5) * 0.2
        }
        let tone = (0..<160_000).map { Float(0.3 * sin(2 * Double.pi * 440 * Double($0) / 16_000)) }
        for audio in [[Float](repeating: 0, count: 160_000), noise, tone] {
            let probabilities = EnergyVADStream().probabilities(of: audio)
            #expect(SpeechSegmenter.regions(probabilities: probabilities, totalSamples: audio.count).isEmpty)
        }
    }

    @Test("segmenter: hysteresis, minimum speech and silence, padding, maximum length")
    func segmenterRules() {
        let chunk = VoiceActivityDetection.chunkLength
        func regions(_ p: [Float], _ options: SpeechSegmentationOptions = .init()) -> [Range<Int>] {
            SpeechSegmenter.regions(probabilities: p, totalSamples: p.count * chunk, options: options).map(\.samples)
        }
        let none = SpeechSegmentationOptions(minSpeechDuration: 0, speechPad: 0)
        // A speech run of 20 chunks (0.64 s) between silences.
        let run = [Float](repeating: 0, count: 10) + [Float](repeating: 0.9, count: 20) + [Float](repeating: 0, count: 10)
        #expect(regions(run, none) == [(10 * chunk)..<(30 * chunk)])
        // Padding of 0.03 s = 480 samples each side.
        #expect(regions(run) == [(10 * chunk - 480)..<(30 * chunk + 480)])
        // A 0.1 s blip is dropped by the default 0.25 s minimum.
        #expect(regions([0, 0, 0.9, 0.9, 0.9, 0, 0, 0, 0, 0]).isEmpty)
        // Dips above the negative threshold (0.35) never end speech; a 2-chunk gap (64 ms) < 100 ms does not either.
        var bridged = run
        bridged[15] = 0.4
        bridged[20] = 0.1
        bridged[21] = 0.1
        #expect(regions(bridged, none) == [(10 * chunk)..<(30 * chunk)])
        // A 10-chunk gap (320 ms) splits.
        var split = run
        for i in 15..<25 { split[i] = 0 }
        #expect(regions(split, none) == [(10 * chunk)..<(15 * chunk), (25 * chunk)..<(30 * chunk)])
        // Speech to the end of the audio closes at the end.
        #expect(regions([0, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9], none) == [chunk..<(10 * chunk)])
        // A 100-chunk run with a 1 s limit is cut into pieces of at most 1 s.
        let long = [Float](repeating: 0.9, count: 100).enumerated().map { $0.offset % 20 == 7 ? 0.6 : $0.element }
        let cut = regions(long, .init(minSpeechDuration: 0, speechPad: 0, maxSpeechDuration: 1))
        #expect(cut.count >= 3)
        #expect(cut.allSatisfy { $0.count <= 16_000 + chunk })
    }
}
