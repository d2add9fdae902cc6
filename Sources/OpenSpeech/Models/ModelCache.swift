import Foundation
import SpeechAudio
import SpeechEngine

/// The process-wide cache of loaded Whisper models, shared by every session, honouring each session's
/// `ModelRetention`: a model stays loaded while a session uses it, then for `lingeringSeconds` (`.lingering`)
/// or until `endRetention()` (`.processLifetime`).
actor ModelCache {
    static let shared = ModelCache()
    static let lingeringSeconds: Double = 60

    private struct Entry {
        var model: WhisperModel
        var users = 0
        var retention: SpeechAnalyzer.Options.ModelRetention = .whileInUse
        var generation = 0
    }

    /// A model folder loaded at a compute type, its work spread over `threads` (nil: the engine's default).
    struct Key: Hashable, Sendable {
        var directory: URL
        var computeType: ComputeType
        var threads: Int?
    }

    private var entries: [Key: Entry] = [:]
    private var loading: [Key: Task<WhisperModel, any Error>] = [:]

    /// The model in `key.directory` at `key.computeType`, loaded once however many sessions ask at the same time.
    func acquire(_ key: Key, retention: SpeechAnalyzer.Options.ModelRetention) async throws -> WhisperModel {
        if var entry = entries[key] {
            entry.users += 1
            entry.retention = strongest(entry.retention, retention)
            entry.generation += 1
            entries[key] = entry
            return entry.model
        }
        // A load converts and packs every weight (tenths of a second for whisper-tiny, seconds for the large models).
        let task = loading[key] ?? Task {
            try await offCooperativePool(qos: .userInitiated) {
                try WhisperModel(directory: key.directory, threads: key.threads, computeType: key.computeType)
            }
        }
        loading[key] = task
        let model: WhisperModel
        do {
            model = try await task.value
        } catch {
            loading[key] = nil
            throw error
        }
        loading[key] = nil
        var entry = entries[key] ?? Entry(model: model)
        entry.users += 1
        entry.retention = strongest(entry.retention, retention)
        entries[key] = entry
        return entry.model
    }

    /// A session stopped using the model loaded for `key`.
    func release(_ key: Key) {
        guard var entry = entries[key] else { return }
        entry.users -= 1
        entry.generation += 1
        entries[key] = entry
        guard entry.users <= 0 else { return }
        switch entry.retention {
        case .whileInUse:
            entries[key] = nil
        case .lingering:
            let generation = entry.generation
            Task {
                try? await Task.sleep(for: .seconds(Self.lingeringSeconds))
                self.dropIfUnused(key, generation: generation)
            }
        case .processLifetime:
            break
        }
    }

    /// Unloads every retained model no session is using.
    func endRetention() {
        entries = entries.filter { $0.value.users > 0 }
    }

    /// Whether a model of `directory` is loaded, at any compute type (for tests).
    func isLoaded(_ directory: URL) -> Bool { entries.keys.contains { $0.directory == directory } }

    private func dropIfUnused(_ key: Key, generation: Int) {
        if let entry = entries[key], entry.users <= 0, entry.generation == generation {
            entries[key] = nil
        }
    }

    private func strongest(_ a: SpeechAnalyzer.Options.ModelRetention,
                           _ b: SpeechAnalyzer.Options.ModelRetention) -> SpeechAnalyzer.Options.ModelRetention {
        let order: [SpeechAnalyzer.Options.ModelRetention] = [.whileInUse, .lingering, .processLifetime]
        return order.firstIndex(of: a)! >= order.firstIndex(of: b)! ? a : b
    }
}
