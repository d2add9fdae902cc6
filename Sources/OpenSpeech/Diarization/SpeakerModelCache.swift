import Foundation
import Synchronization
import SpeechEngine

/// The process-wide cache of loaded CAM++ speaker-embedding models (an installed `campplus-sv-zh-en` folder): each
/// loaded once, on first need, and kept for the process's lifetime, as `SileroModelCache` keeps the detector's.
final class SpeakerModelCache: Sendable {
    static let shared = SpeakerModelCache()
    static let fileName = "campplus_cn_en_common.pt"

    private let models = Mutex<[URL: CAMPlusPlus]>([:])

    /// The model in `directory`, loaded now if it is not yet; a model that does not load is not kept.
    func model(in directory: URL) throws -> CAMPlusPlus {
        let key = directory.standardizedFileURL
        return try models.withLock { models in
            if let model = models[key] { return model }
            let model = try CAMPlusPlus(url: key.appendingPathComponent(Self.fileName))
            models[key] = model
            return model
        }
    }
}
