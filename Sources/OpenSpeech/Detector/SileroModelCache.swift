import Foundation
import Synchronization
import SpeechEngine

/// The process-wide cache of loaded Silero VAD models (an installed `silero-vad` folder): each loaded once, on
/// first need, and kept for the process's lifetime, as `ModelCache` keeps Whisper models with `.processLifetime`.
/// A file workflow runs the detector twice per file (language detection's first speech, then the transcription's
/// gate) and a batch runs it for every file: without the cache each run parsed the model again. The model is
/// immutable and shared; every detector gets its own stream state (`SileroVAD.makeStream`).
final class SileroModelCache: Sendable {
    static let shared = SileroModelCache()

    /// Held during a load, so that a second caller waits for the first's model rather than loading it again.
    private let models = Mutex<[URL: SileroVAD]>([:])

    /// The model in `directory`, loaded now if it is not yet; a model that does not load is not kept (the error
    /// again on the next call).
    func model(in directory: URL) throws -> SileroVAD {
        let key = directory.standardizedFileURL
        return try models.withLock { models in
            if let model = models[key] { return model }
            let model = try SileroVAD(directory: key)
            models[key] = model
            return model
        }
    }
}
