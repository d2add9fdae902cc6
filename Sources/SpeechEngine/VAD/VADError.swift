import Foundation

/// Why Silero VAD weights could not be loaded, each with a sentence a person can act on.
public enum VADError: Error, Equatable, CustomStringConvertible {
    case missingModel(URL)
    case corruptFile(URL, String)
    case missingWeight(String)
    case unexpectedShape(String, expected: [Int], actual: [Int])
    case unsupportedDataType(String, String)

    public var description: String {
        switch self {
        case .missingModel(let url):
            "No Silero VAD weights (silero_vad.onnx or silero_vad_16k.safetensors) in \(url.path); install the model silero-vad."
        case .corruptFile(let url, let reason):
            "\(url.lastPathComponent) is not a valid weights file (\(reason)); install the model silero-vad again."
        case .missingWeight(let name):
            "The Silero VAD weights lack \(name); the file is not a 16 kHz Silero VAD model."
        case .unexpectedShape(let name, let expected, let actual):
            "The Silero VAD weight \(name) has shape \(actual), expected \(expected); the file is not a Silero VAD v5/v6 model."
        case .unsupportedDataType(let name, let type):
            "The Silero VAD weight \(name) is stored as \(type), which this engine cannot read (float32 or float16 only)."
        }
    }
}
