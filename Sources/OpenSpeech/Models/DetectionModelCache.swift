import Foundation
import Synchronization
import SpeechEngine

/// The process-wide cache of `LanguageDetectionModel`s (a model folder at a compute type): each loaded once, on first
/// need, by the caller's thread (the language identifier's own queue, off the cooperative pool), and kept for the
/// process's lifetime, as the whole detecting model was kept before detection had a load of its own.
final class DetectionModelCache: Sendable {
    static let shared = DetectionModelCache()

    /// Held during a load, so that a second caller waits for the first's model rather than loading it again.
    private let models = Mutex<[ModelCache.Key: LanguageDetectionModel]>([:])

    /// The detection model of `key`, loaded now if it is not yet.
    func model(_ key: ModelCache.Key) throws -> LanguageDetectionModel {
        try models.withLock { models in
            if let model = models[key] { return model }
            let model = try LanguageDetectionModel(directory: key.directory, computeType: key.computeType)
            models[key] = model
            return model
        }
    }
}
