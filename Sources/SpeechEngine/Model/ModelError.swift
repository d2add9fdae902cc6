import Foundation

/// Why a model directory could not be loaded, each with a sentence a person can act on.
public enum ModelError: Error, Equatable, CustomStringConvertible {
    case missingFile(URL)
    case unsupportedFormatVersion(Int)
    case wrongArchitecture(String)
    case truncated(URL, expectedBytes: Int, actualBytes: Int)
    case missingVariable(String)
    case unexpectedShape(String, [Int])
    case unsupportedDataType(String, Int)
    case invalidConfig(String)
    case invalidVocabulary(String)
    case invalidQuantizationScale(String)
    /// A variable whose declared shape and type disagree with its bytes.
    case corruptVariable(String, reason: String)
    /// Files of the model directory that disagree with each other: the file, its field, and how.
    case inconsistentModel(file: String, field: String, reason: String)

    public var description: String {
        switch self {
        case .missingFile(let url):
            "The model file \(url.path) does not exist; install the model again."
        case .unsupportedFormatVersion(let version):
            "model.bin uses CTranslate2 format version \(version), which this engine cannot read (versions 4–6 are supported)."
        case .wrongArchitecture(let spec):
            "model.bin holds a \(spec) model, not a Whisper model; choose a Whisper model directory."
        case .truncated(let url, let expected, let actual):
            "\(url.lastPathComponent) is truncated (needs at least \(expected) bytes, has \(actual)); download it again."
        case .missingVariable(let name):
            "model.bin lacks the variable \(name); it is not a complete Whisper model."
        case .unexpectedShape(let name, let shape):
            "The variable \(name) has an unexpected shape \(shape); the model file is inconsistent."
        case .unsupportedDataType(let name, let code):
            "The variable \(name) uses data type \(code), which this engine cannot read."
        case .invalidConfig(let reason):
            "config.json is invalid: \(reason)."
        case .invalidVocabulary(let reason):
            "The vocabulary is invalid: \(reason)."
        case .invalidQuantizationScale(let name):
            "The quantization scale of \(name) is zero, negative, not a number or of the wrong size; the model file is damaged."
        case .corruptVariable(let name, let reason):
            "The variable \(name) in model.bin \(reason); the model file is damaged: install the model again."
        case .inconsistentModel(let file, let field, let reason):
            "\(file) does not fit the rest of the model directory: \(field) \(reason); install the model again or convert it anew."
        }
    }
}
