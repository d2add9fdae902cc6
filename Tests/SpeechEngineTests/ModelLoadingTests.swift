import Foundation
import Testing
@testable import SpeechEngine
import TestSupport

@Suite("Model loading")
struct ModelLoadingTests {
    @Test("reads tiny.en's dimensions from model.bin")
    func dimensions() async throws {
        let model = try await SharedModels.tinyEn()
        #expect(model.dimensions == ModelDimensions(melBins: 80, modelWidth: 384, encoderHeads: 6, decoderHeads: 6,
                                                    encoderLayers: 4, decoderLayers: 4, vocabularySize: 51864,
                                                    audioContext: 1500, textContext: 448))
        #expect(!model.dimensions.isMultilingual)
        #expect(model.config.alignmentHeads.count == 8)
    }

    @Test("a truncated model.bin is a typed error")
    func truncated() async throws {
        let source = try await TestModels.directory(for: "whisper-tiny.en")
        let directory = try makeTemporaryDirectory("truncated-model")
        defer { try? FileManager.default.removeItem(at: directory) }
        for name in ["config.json", "tokenizer.json", "vocabulary.txt"] {
            try FileManager.default.copyItem(at: source.appendingPathComponent(name), to: directory.appendingPathComponent(name))
        }
        let bytes = try Data(contentsOf: source.appendingPathComponent("model.bin"))
        try bytes.prefix(bytes.count / 2).write(to: directory.appendingPathComponent("model.bin"))
        #expect {
            _ = try WhisperModel(directory: directory)
        } throws: { error in
            if case ModelError.truncated = error { return true }
            return false
        }
    }

    @Test("another architecture is a typed error")
    func wrongArchitecture() throws {
        let directory = try makeTemporaryDirectory("wrong-model")
        defer { try? FileManager.default.removeItem(at: directory) }
        var bytes = Data()
        func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) } }
        u32(6)
        let name = Array("TransformerSpec".utf8) + [0]
        withUnsafeBytes(of: UInt16(name.count).littleEndian) { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: name)
        u32(1); u32(0); u32(0)
        try bytes.write(to: directory.appendingPathComponent("model.bin"))
        #expect(throws: ModelError.wrongArchitecture("TransformerSpec")) {
            _ = try WhisperModel(directory: directory)
        }
    }

    @Test("a missing model.bin is a typed error")
    func missing() throws {
        let directory = try makeTemporaryDirectory("missing-model")
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(throws: ModelError.missingFile(directory.appendingPathComponent("model.bin"))) {
            _ = try WhisperModel(directory: directory)
        }
    }
}
