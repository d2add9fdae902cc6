import Foundation
import Synchronization
import SpeechEngine

/// A process-wide cache of models loaded from installed folders: each loaded once, on first need, and kept for the
/// process's lifetime (as `ModelCache` keeps Whisper models with `.processLifetime`). The models are immutable and
/// shared; whatever state a use needs is its own (a detector's stream, an embedder's scratch). A file workflow runs the
/// speech detector twice per file and a batch runs every model for every file: without the cache each run parsed its
/// model again.
final class LoadedModelCache<Model: Sendable>: Sendable {
    private let load: @Sendable (URL) throws -> Model
    /// Held during a load, so that a second caller waits for the first's model rather than loading it again.
    private let models = Mutex<[URL: Model]>([:])

    /// A cache loading a model from its installed folder with `load`.
    init(load: @escaping @Sendable (URL) throws -> Model) {
        self.load = load
    }

    /// The model in `directory`, loaded now if it is not yet; a model that does not load is not kept (the error
    /// again on the next call).
    func model(in directory: URL) throws -> Model {
        let key = directory.standardizedFileURL
        return try models.withLock { models in
            if let model = models[key] { return model }
            let model = try load(key)
            models[key] = model
            return model
        }
    }
}

extension LoadedModelCache<SileroVAD> {
    /// Silero VAD (an installed `silero-vad` folder).
    static let silero = LoadedModelCache { try SileroVAD(directory: $0) }
}

extension LoadedModelCache<CAMPlusPlus> {
    /// CAM++ speaker embeddings (an installed `campplus-sv-zh-en` folder).
    static let speakerEmbeddings = LoadedModelCache { try CAMPlusPlus(url: $0.appendingPathComponent("campplus_cn_en_common.pt")) }
}

extension LoadedModelCache<SpeakerSegmentationModel> {
    /// pyannote segmentation-3.0 (an installed `pyannote-segmentation-3.0` folder).
    static let segmentation = LoadedModelCache { try SpeakerSegmentationModel(url: $0.appendingPathComponent("pytorch_model.bin")) }
}
