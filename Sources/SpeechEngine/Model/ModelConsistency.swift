import Foundation

/// The checks that a model directory's files agree with each other (model.bin's sizes, config.json's ids and
/// heads, the vocabulary's size, preprocessor_config.json's mel bins), run once at load so that a mismatched
/// directory is a typed error naming the file and the field rather than a crash or nonsense mid-transcription.
struct ModelConsistency {
    let dimensions: ModelDimensions
    let config: ModelConfig
    /// The tokenizer's token count, timestamps included, and the file that defined it.
    let vocabularySize: Int
    let vocabularyFile: String
    /// `feature_size` of `preprocessor_config.json`, when the directory has one.
    let featureSize: Int?

    func check() throws {
        guard vocabularySize == dimensions.vocabularySize else {
            throw ModelError.inconsistentModel(
                file: vocabularyFile, field: "the token count",
                reason: "is \(vocabularySize) (timestamps included) but model.bin's decoder/embeddings/weight has \(dimensions.vocabularySize) rows")
        }
        for pair in config.alignmentHeads {
            guard pair.count == 2, (0..<dimensions.decoderLayers).contains(pair[0]),
                  (0..<dimensions.decoderHeads).contains(pair[1])
            else {
                throw ModelError.inconsistentModel(
                    file: "config.json", field: "alignment_heads",
                    reason: "names the (layer, head) \(pair) but model.bin's decoder has \(dimensions.decoderLayers) layers of \(dimensions.decoderHeads) heads")
            }
        }
        for (field, ids) in [("lang_ids", config.languageIDs), ("suppress_ids", config.suppressIDs),
                             ("suppress_ids_begin", config.suppressIDsBegin)] {
            if let id = ids.first(where: { !(0..<dimensions.vocabularySize).contains($0) }) {
                throw ModelError.inconsistentModel(
                    file: "config.json", field: field,
                    reason: "holds the token id \(id), outside model.bin's vocabulary of \(dimensions.vocabularySize) tokens")
            }
        }
        if let featureSize, featureSize != dimensions.melBins {
            throw ModelError.inconsistentModel(
                file: "preprocessor_config.json", field: "feature_size",
                reason: "is \(featureSize) but model.bin's encoder/conv1/weight reads \(dimensions.melBins) mel bins")
        }
    }

    /// The file the tokenizer of `directory` takes its token spellings from.
    static func vocabularyFile(in directory: URL) -> String {
        ["vocabulary.txt", "vocabulary.json"].first {
            FileManager.default.fileExists(atPath: directory.appendingPathComponent($0).path)
        } ?? "tokenizer.json"
    }

    /// `feature_size` of the directory's `preprocessor_config.json`; nil without the file, an error when unreadable.
    static func featureSize(in directory: URL) throws -> Int? {
        struct Preprocessor: Decodable {
            let featureSize: Int?
            enum CodingKeys: String, CodingKey { case featureSize = "feature_size" }
        }
        let url = directory.appendingPathComponent("preprocessor_config.json")
        guard let data = FileManager.default.contents(atPath: url.path) else { return nil }
        do {
            return try JSONDecoder().decode(Preprocessor.self, from: data).featureSize
        } catch {
            throw ModelError.inconsistentModel(file: "preprocessor_config.json", field: "feature_size",
                                               reason: "cannot be read (\(error))")
        }
    }
}
