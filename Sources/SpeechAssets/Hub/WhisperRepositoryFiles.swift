import Foundation

/// The files of a repository that make a CTranslate2 Whisper model directory: `model.bin`, `config.json`, every
/// vocabulary present (`vocabulary.json`, `vocabulary.txt`, `tokenizer.json`; at least one) and
/// `preprocessor_config.json` if present. Nothing else is installed (READMEs, `.gitattributes`, other formats).
enum WhisperRepositoryFiles {
    static let required = ["model.bin", "config.json"]
    static let vocabularies = ["vocabulary.json", "vocabulary.txt", "tokenizer.json"]
    static let optional = ["preprocessor_config.json"]

    /// The names among `available` to install, in a stable order, or why they are not a Whisper model
    /// (the reason of `ModelAssetError.notAWhisperRepository`).
    static func select(from available: Set<String>) -> Result<[String], Missing> {
        if let missing = required.first(where: { !available.contains($0) }) {
            return .failure(Missing(reason: "it has no \(missing)"))
        }
        let vocabulary = vocabularies.filter(available.contains)
        guard !vocabulary.isEmpty else {
            return .failure(Missing(reason: "it has none of " + vocabularies.joined(separator: ", ")))
        }
        return .success(required + vocabulary + optional.filter(available.contains))
    }

    struct Missing: Error, Equatable {
        let reason: String
    }
}
