import Foundation
import Testing
@testable import SpeechEngine
import TestSupport

/// A model directory whose files disagree with each other is a typed error naming the file and the field.
@Suite("Model directory consistency")
struct ModelConsistencyTests {
    private let tinyEn = ModelDimensions(melBins: 80, modelWidth: 384, encoderHeads: 6, decoderHeads: 6, encoderLayers: 4,
                                         decoderLayers: 4, vocabularySize: 51864, audioContext: 1500, textContext: 448)

    private func config(_ json: String) throws -> ModelConfig { try JSONDecoder().decode(ModelConfig.self, from: Data(json.utf8)) }

    private func check(_ config: ModelConfig, vocabularySize: Int = 51864, featureSize: Int? = nil) throws {
        try ModelConsistency(dimensions: tinyEn, config: config, vocabularySize: vocabularySize,
                             vocabularyFile: "vocabulary.txt", featureSize: featureSize).check()
    }

    @Test("tiny.en's own files agree")
    func agreeing() throws {
        try check(config(#"{"alignment_heads": [[1, 0], [3, 5]], "lang_ids": [50259], "suppress_ids": [1, 2], "suppress_ids_begin": [220, 50256]}"#),
                  featureSize: 80)
    }

    @Test("an alignment head past the decoder's layers or heads names config.json and alignment_heads",
          arguments: ["[[4, 0]]", "[[0, 6]]", "[[-1, 0]]", "[[1]]"])
    func alignmentHeadOutOfRange(heads: String) throws {
        #expect {
            try check(config(#"{"alignment_heads": \#(heads)}"#))
        } throws: { error in
            guard case let ModelError.inconsistentModel(file, field, _) = error else { return false }
            return file == "config.json" && field == "alignment_heads"
        }
    }

    @Test("a token id outside the vocabulary names config.json and its field",
          arguments: [("lang_ids", 51864), ("suppress_ids", -1), ("suppress_ids_begin", 100_000)])
    func tokenIDOutOfRange(field: String, id: Int) throws {
        #expect(throws: ModelError.inconsistentModel(
            file: "config.json", field: field, reason: "holds the token id \(id), outside model.bin's vocabulary of 51864 tokens")) {
            try check(config(#"{"\#(field)": [\#(id)]}"#))
        }
    }

    @Test("a vocabulary of another size than the output layer names the vocabulary file")
    func vocabularySize() throws {
        #expect(throws: ModelError.inconsistentModel(
            file: "vocabulary.txt", field: "the token count",
            reason: "is 51865 (timestamps included) but model.bin's decoder/embeddings/weight has 51864 rows")) {
            try check(config("{}"), vocabularySize: 51865)
        }
    }

    @Test("preprocessor_config.json's mel bins must be the encoder's")
    func melBins() throws {
        #expect(throws: ModelError.inconsistentModel(
            file: "preprocessor_config.json", field: "feature_size",
            reason: "is 128 but model.bin's encoder/conv1/weight reads 80 mel bins")) {
            try check(config("{}"), featureSize: 128)
        }
    }

    /// A copy of tiny.en's directory (model.bin linked) with `changes` applied to its files.
    private func tinyEnCopy(_ label: String, _ changes: (URL) throws -> Void) async throws -> URL {
        let source = try await TestModels.directory(for: "whisper-tiny.en")
        let directory = try makeTemporaryDirectory(label)
        try FileManager.default.createSymbolicLink(at: directory.appendingPathComponent("model.bin"),
                                                   withDestinationURL: source.appendingPathComponent("model.bin"))
        for name in ["config.json", "tokenizer.json", "vocabulary.txt"] {
            try FileManager.default.copyItem(at: source.appendingPathComponent(name), to: directory.appendingPathComponent(name))
        }
        try changes(directory)
        return directory
    }

    @Test("loading tiny.en with a vocabulary.txt of one token too many is a typed error naming vocabulary.txt")
    func realDirectoryWithLongerVocabulary() async throws {
        let directory = try await tinyEnCopy("long-vocabulary") { directory in
            let url = directory.appendingPathComponent("vocabulary.txt")
            var text = try String(contentsOf: url, encoding: .utf8)
            if !text.hasSuffix("\n") { text += "\n" }
            // One token past the 1501 timestamps.
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).count - 1
            text += String(repeating: "extra\n", count: 51864 - lines + 1)
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect {
            _ = try WhisperModel(directory: directory)
        } throws: { error in
            guard case let ModelError.inconsistentModel(file, _, _) = error else { return false }
            return file == "vocabulary.txt" && "\(error)".contains("51865")
        }
    }

    @Test("loading tiny.en with an alignment head of a fifth layer is a typed error naming config.json")
    func realDirectoryWithBadAlignmentHead() async throws {
        let directory = try await tinyEnCopy("bad-alignment") { directory in
            try Data(#"{"alignment_heads": [[1, 0], [4, 2]], "suppress_ids": [1]}"#.utf8)
                .write(to: directory.appendingPathComponent("config.json"))
        }
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(throws: ModelError.inconsistentModel(
            file: "config.json", field: "alignment_heads",
            reason: "names the (layer, head) [4, 2] but model.bin's decoder has 4 layers of 6 heads")) {
            _ = try WhisperModel(directory: directory)
        }
    }
}
