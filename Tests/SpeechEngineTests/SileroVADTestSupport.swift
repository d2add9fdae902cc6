import Foundation
@testable import SpeechEngine
import SpeechAudio
import TestSupport

/// Shared pieces of the Silero VAD tests: the installed model, corpus clips and the Python reference.
enum SileroVADFixtures {
    static func directory() async throws -> URL { try await TestSupport.TestModels.directory(for: "silero-vad") }

    static func model(_ file: String = SileroVAD.onnxFileName) async throws -> SileroVAD {
        try SileroVAD(contentsOf: try await directory().appendingPathComponent(file))
    }

    static func clip(_ id: String) throws -> [Float] {
        guard let item = Corpus.item(id) else { throw CommandError.failed(command: "corpus \(id)", status: 1, stderr: "missing") }
        return try MonoAudio.load(contentsOf: item.wav16kURL)
    }

    /// `samples` with `seconds` of near-silence (deterministic noise at about −80 dBFS) on each side.
    static func padded(_ samples: [Float], seconds: Double) -> [Float] {
        var generator = UInt32(12345)
        let silence = (0..<Int(seconds * 16_000)).map { _ -> Float in
            generator = generator &* 1_664_525 &+ 1_013_904_223
            return (Float(generator >> 8) / Float(1 << 24) - 0.5) * 2e-4
        }
        return silence + samples + silence
    }

    /// Per-chunk probabilities from `Support/silero_onnx_reference.py` (`weights`: "onnx" runs onnxruntime).
    static func reference(_ clips: [[Float]], weights: String = "onnx") async throws -> [[Float]] {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Support/silero_onnx_reference.py")
        let model = try await directory()
        let temporary = try makeTemporaryDirectory("silero-reference")
        defer { try? FileManager.default.removeItem(at: temporary) }
        var paths: [String] = []
        for (index, clip) in clips.enumerated() {
            let url = temporary.appendingPathComponent("\(index).f32")
            try clip.withUnsafeBufferPointer { Data(buffer: $0) }.write(to: url)
            paths.append(url.path)
        }
        let result = try await runCommand("python3", [script.path, model.path, "--weights", weights] + paths)
        let lists = try JSONSerialization.jsonObject(with: result.stdout) as! [[NSNumber]]
        return lists.map { $0.map(\.floatValue) }
    }

    static func maxDifference(_ a: [Float], _ b: [Float]) -> Float {
        zip(a, b).map { abs($0 - $1) }.max() ?? 0
    }
}
