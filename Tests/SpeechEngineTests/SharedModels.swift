import Foundation
@testable import SpeechEngine
import TestSupport

/// Models loaded once per test process (loading converts every weight to fp32).
actor SharedModels {
    static let shared = SharedModels()
    private var loaded: [String: WhisperModel] = [:]

    func model(_ id: String) async throws -> WhisperModel {
        if let model = loaded[id] { return model }
        let model = try WhisperModel(directory: try await TestModels.directory(for: id))
        loaded[id] = model
        return model
    }

    /// `id` loaded with products in `computeType`, once per process.
    func model(_ id: String, computeType: ComputeType) async throws -> WhisperModel {
        let key = "\(id)@\(computeType)"
        if let model = loaded[key] { return model }
        let model = try WhisperModel(directory: try await TestModels.directory(for: id), computeType: computeType)
        loaded[key] = model
        return model
    }

    static func tinyEn() async throws -> WhisperModel { try await shared.model("whisper-tiny.en") }
    static func base() async throws -> WhisperModel { try await shared.model("whisper-base") }
}

/// 16-bit PCM WAV (the corpus's `wav16k` files) as floats in [-1, 1].
enum WAV {
    static func read(_ url: URL) throws -> [Float] {
        let data = try Data(contentsOf: url)
        var offset = 12
        while offset + 8 <= data.count {
            let id = String(decoding: data[offset..<(offset + 4)], as: UTF8.self)
            let size = data[(offset + 4)..<(offset + 8)].enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
            if id == "data" {
                let body = data[(offset + 8)..<min(offset + 8 + size, data.count)]
                return body.withUnsafeBytes { raw in
                    (0..<(body.count / 2)).map { Float(Int16(littleEndian: raw.loadUnaligned(fromByteOffset: 2 * $0, as: Int16.self))) / 32768 }
                }
            }
            offset += 8 + size + (size & 1)
        }
        return []
    }
}
