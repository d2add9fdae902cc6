import Foundation

/// The engine's readers of files other people made, each reached as loading a model reaches it, for the fuzz targets
/// (bench/Fuzz) and the tests of damaged files. Every function reads and discards; a damaged file is a typed error.
package enum EngineReaders {
    /// Reads `model.bin`: its variable table, every variable's values in each form the loader asks for, then the
    /// weights of a Whisper model in `computeType`.
    package static func readModelFile(_ url: URL, computeType: ComputeType = .float32) throws {
        let file = try ModelFile(url: url)
        for (name, variable) in file.variables.sorted(by: { $0.key < $1.key }) {
            if variable.shape.isEmpty { _ = try? file.integer(name) }
            if variable.shape.count == 2 { _ = try? file.halfMatrix(name) }
            _ = try? file.tensor(name)
        }
        _ = try WhisperWeights(file: file, computeType: computeType)
    }

    /// Reads `config.json`.
    package static func readConfig(_ url: URL) throws {
        _ = try ModelConfig.load(url)
    }

    /// Reads an ONNX Runtime ORT-format model (Moonshine's `encoder_model.ort`, `decoder_model_merged.ort`): its
    /// graphs, every initializer's values, and each weight by layer, dequantized.
    package static func readORTModel(_ url: URL) throws {
        let model = try ORTModel(url: url)
        for initializer in model.graph.allInitializers {
            switch initializer.elementType {
            case .float32: _ = try model.floats(initializer)
            case .int8: _ = try model.int8s(initializer)
            default: break
            }
        }
        let weights = try ORTWeights(model: model)
        for name in weights.quantized.keys.sorted() { _ = try weights.values(name) }
    }

    /// Reads a PyTorch checkpoint (the diarization models'): every tensor, then CAM++'s weights from it.
    package static func readTorchCheckpoint(_ url: URL) throws {
        let checkpoint = try TorchCheckpoint(url: url)
        _ = try CAMPlusPlusWeights(checkpoint: checkpoint)
    }

    /// Reads Moonshine's `tokenizer.bin`, decodes every token and encodes a phrase with its pieces (contextual
    /// biasing's encoder).
    package static func readMoonshineTokenizer(_ url: URL) throws {
        let tokenizer = try MoonshineTokenizer(url: url)
        _ = tokenizer.decode(Array(0..<tokenizer.count))
        _ = MoonshineTokenizer.Encoder(tokenizer).encode(" Kubernetes, café 12.5% 🙂")
    }
}
