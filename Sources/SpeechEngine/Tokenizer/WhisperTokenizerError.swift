/// Why a Whisper tokenizer could not be loaded from a model directory.
public enum WhisperTokenizerError: Error, CustomStringConvertible, Sendable {
    /// The directory has no `vocabulary.txt`, `vocabulary.json` or `tokenizer.json`.
    case missingFile(String)
    /// A file exists but cannot be used; the second value says why.
    case invalidFile(String, String)

    public var description: String {
        switch self {
        case let .missingFile(name):
            "The model directory has no \(name); reinstall the model or pick a complete CTranslate2 Whisper directory."
        case let .invalidFile(name, reason):
            "The model's \(name) cannot be used (\(reason)); reinstall the model."
        }
    }
}
