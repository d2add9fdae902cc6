import Foundation
import Testing
@testable import SpeechEngine
import TestSupport

/// Silero VAD in Swift against onnxruntime running the same model's ONNX file.
@Suite("SileroVAD parity", .serialized)
struct SileroVADParityTests {
    static let clipIDs = ["1089-134686-0002", "2033-164915-0001", "4198-12281-0001", "1221-135766-0002", "4198-12281-0007"]

    @Test("per-chunk probabilities within 0.01 of onnxruntime on corpus clips")
    func onnxParity() async throws {
        let model = try await SileroVADFixtures.model()
        var clips = try Self.clipIDs.map(SileroVADFixtures.clip)
        clips.append(SileroVADFixtures.padded(clips[0], seconds: 3))
        let reference = try await SileroVADFixtures.reference(clips)
        let stream = model.makeStream()
        var worst: Float = 0
        for (clip, expected) in zip(clips, reference) {
            let actual = stream.probabilities(of: clip)
            #expect(actual.count == expected.count)
            let difference = SileroVADFixtures.maxDifference(actual, expected)
            worst = max(worst, difference)
            #expect(difference < 0.01)
        }
        print("SileroVAD vs onnxruntime: max |Δp| = \(worst) over \(clips.count) clips")
    }

    @Test("safetensors weights match the same architecture in numpy")
    func safetensorsParity() async throws {
        let model = try await SileroVADFixtures.model(SileroVAD.safetensorsFileName)
        let clips = try Self.clipIDs.prefix(2).map(SileroVADFixtures.clip)
        let reference = try await SileroVADFixtures.reference(clips, weights: "safetensors")
        for (clip, expected) in zip(clips, reference) {
            let actual = model.makeStream().probabilities(of: clip)
            #expect(actual.count == expected.count)
            #expect(SileroVADFixtures.maxDifference(actual, expected) < 0.01)
        }
    }

    @Test("audio fed in pieces of any size scores as the whole clip")
    func streamingMatchesBatch() async throws {
        let model = try await SileroVADFixtures.model()
        let clip = try SileroVADFixtures.clip(Self.clipIDs[1])
        let whole = model.makeStream(batchChunks: 64).probabilities(of: clip)
        let stream = model.makeStream(batchChunks: 3)
        var pieces: [Float] = [], offset = 0, size = 1
        while offset < clip.count {
            let end = min(clip.count, offset + size)
            pieces += stream.process(Array(clip[offset..<end]))
            offset = end
            size = size * 7 % 1999 + 1
        }
        if let last = stream.finish() { pieces.append(last) }
        #expect(pieces.count == whole.count)
        #expect(SileroVADFixtures.maxDifference(pieces, whole) < 1e-4)
        #expect(stream.chunksProcessed == whole.count)
    }

    @Test("a folder without weights, and a corrupt file, give errors a person can act on")
    func loadErrors() throws {
        let folder = try makeTemporaryDirectory("silero-missing")
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(throws: VADError.missingModel(folder)) { try SileroVAD(directory: folder) }
        let bad = folder.appendingPathComponent(SileroVAD.safetensorsFileName)
        try Data([1, 2, 3, 4, 5, 6, 7, 8, 9]).write(to: bad)
        #expect(throws: VADError.self) { try SileroVAD(directory: folder) }
        let onnx = folder.appendingPathComponent(SileroVAD.onnxFileName)
        try Data([0x3A, 0xFF, 0xFF, 0xFF, 0x0F]).write(to: onnx)
        #expect(throws: VADError.self) { try SileroVAD(directory: folder) }
    }
}
