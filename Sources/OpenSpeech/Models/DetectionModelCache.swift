import Foundation
import Synchronization
import SpeechEngine

/// The process-wide cache of `LanguageDetectionModel`s (a model folder at a compute type): each loaded once, on first
/// need, by the caller's thread (the language identifier's own queue, off the cooperative pool), and kept for the
/// process's lifetime, as the whole detecting model was kept before detection had a load of its own. Sessions are
/// kept too, once a detection is done with them: the next file's detection reuses their scratch memory instead of
/// faulting fresh pages in (a sixth of a detection's time on a short file).
final class DetectionModelCache: Sendable {
    static let shared = DetectionModelCache()

    /// Held during a load, so that a second caller waits for the first's model rather than loading it again.
    private let models = Mutex<[ModelCache.Key: LanguageDetectionModel]>([:])
    /// Sessions no detection is using, per model.
    private let idle = Mutex<[ModelCache.Key: [IdleSession]]>([:])

    /// The detection model of `key`, loaded now if it is not yet.
    func model(_ key: ModelCache.Key) throws -> LanguageDetectionModel {
        try models.withLock { models in
            if let model = models[key] { return model }
            let model = try LanguageDetectionModel(directory: key.directory, threads: key.threads, computeType: key.computeType)
            models[key] = model
            return model
        }
    }

    /// Runs `body` with a session of `key`'s model that no one else is using (an idle one, else a new one), and
    /// keeps the session for the next caller afterwards.
    func withSession<T>(_ key: ModelCache.Key, _ body: (LanguageDetectionSession) throws -> T) throws -> T {
        let session = try idle.withLock { $0[key]?.popLast() }?.session ?? LanguageDetectionSession(model: model(key))
        defer { idle.withLock { $0[key, default: []].append(IdleSession(session: session)) } }
        return try body(session)
    }
}

/// A session while no detection uses it. Safe to send although the session is not: it is only ever held by the idle
/// list (under its lock) or by the one caller of `withSession` that took it out, never by two at once.
private struct IdleSession: @unchecked Sendable {
    let session: LanguageDetectionSession
}
