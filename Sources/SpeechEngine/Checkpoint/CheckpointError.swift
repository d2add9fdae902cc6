import Foundation

/// Why a PyTorch checkpoint could not be read, each with a sentence a person can act on.
public enum CheckpointError: Error, Equatable, CustomStringConvertible {
    case unreadable(file: String, reason: String)
    /// The bytes are not a checkpoint PyTorch's format describes.
    case corrupt(file: String, reason: String)
    case missingTensor(file: String, name: String)
    case unexpectedShape(file: String, name: String, shape: [Int], expected: [Int])
    /// A tensor stored in an element type the reader does not convert.
    case unsupportedType(file: String, name: String, type: String)

    public var description: String {
        switch self {
        case .unreadable(let file, let reason):
            "The checkpoint \(file) cannot be read (\(reason)); install the model again."
        case .corrupt(let file, let reason):
            "The checkpoint \(file) is damaged: \(reason); install the model again."
        case .missingTensor(let file, let name):
            "The checkpoint \(file) lacks the tensor \(name); it is not the model it should be: install the model again."
        case .unexpectedShape(let file, let name, let shape, let expected):
            "The tensor \(name) of \(file) has the shape \(shape), not \(expected); it is not the model it should be."
        case .unsupportedType(let file, let name, let type):
            "The tensor \(name) of \(file) is stored as \(type), which this engine does not read; save the checkpoint in float32."
        }
    }
}
