import Foundation

/// Why an ONNX Runtime ORT-format model file (or the tokenizer beside it) could not be read, each with a sentence a
/// person can act on.
public enum ORTFormatError: Error, Equatable, CustomStringConvertible {
    /// The file does not start as an ORT-format model (`ORTM`).
    case notORTFormat(String)
    /// An ORT format version this reader does not know.
    case unsupportedVersion(String)
    /// An offset or count that leads outside the file.
    case outOfBounds(String)
    /// A structure the model needs is absent or malformed.
    case malformed(String)
    /// An initializer whose declared shape and type disagree with its bytes, or whose type is not read here.
    case invalidTensor(String, reason: String)
    /// A weight the architecture needs that the graph does not hold.
    case missingWeight(String)

    public var description: String {
        switch self {
        case .notORTFormat(let file):
            "\(file) is not an ONNX Runtime ORT-format model (it does not start with the `ORTM` identifier); install the model again."
        case .unsupportedVersion(let version):
            "The model uses ORT format version \(version), which this engine cannot read (versions 5 and 6 are supported)."
        case .outOfBounds(let what):
            "The model file is damaged: \(what) lies outside it; install the model again."
        case .malformed(let what):
            "The model file is damaged: \(what); install the model again."
        case .invalidTensor(let name, let reason):
            "The weight \(name) \(reason); the model file is damaged: install the model again."
        case .missingWeight(let name):
            "The model lacks the weight \(name); it is not a complete model of its family."
        }
    }
}
