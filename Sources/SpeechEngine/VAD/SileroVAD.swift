import Foundation

/// The Silero VAD model (16 kHz), loaded once and shared; `makeStream()` gives each audio stream its own state.
///
/// Weights come from `silero_vad.onnx` (its 16 kHz branch) or `silero_vad_16k.safetensors`. In silero-vad 6.2.3
/// the two files hold different checkpoints: the ONNX file matches the package's TorchScript model (v6), while
/// the safetensors file holds an older one, so a directory with both loads the ONNX file.
public final class SileroVAD: Sendable {
    public static let onnxFileName = "silero_vad.onnx"
    public static let safetensorsFileName = "silero_vad_16k.safetensors"

    /// The file the weights were read from.
    public let weightsFile: URL
    let weights: SileroVADWeights

    /// Loads the weights in an installed `silero-vad` model folder (ONNX preferred, else safetensors).
    public convenience init(directory: URL) throws {
        let onnx = directory.appendingPathComponent(Self.onnxFileName)
        let safetensors = directory.appendingPathComponent(Self.safetensorsFileName)
        if FileManager.default.fileExists(atPath: onnx.path) {
            try self.init(contentsOf: onnx)
        } else if FileManager.default.fileExists(atPath: safetensors.path) {
            try self.init(contentsOf: safetensors)
        } else {
            throw VADError.missingModel(directory)
        }
    }

    /// Loads weights from one `.onnx` or `.safetensors` file.
    public init(contentsOf file: URL) throws {
        guard FileManager.default.fileExists(atPath: file.path) else { throw VADError.missingModel(file) }
        BLASSettings.singleThreaded
        weights = file.pathExtension == "onnx" ? try SileroVADWeights(onnx: file) : try SileroVADWeights(safetensors: file)
        weightsFile = file
    }

    /// A detector with fresh state. `batchChunks` bounds how many chunks one BLAS batch holds when audio
    /// arrives faster than real time (more is faster, up to the cache size).
    public func makeStream(batchChunks: Int = 32) -> SileroVADStream {
        SileroVADStream(model: self, batchChunks: batchChunks)
    }
}
