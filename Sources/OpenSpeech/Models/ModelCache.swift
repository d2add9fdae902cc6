import Foundation
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

    private var entries: [URL: Entry] = [:]
    private var loading: [URL: Task<WhisperModel, any Error>] = [:]

    /// The model in `directory`, loaded once however many sessions ask at the same time.
    func acquire(_ directory: URL, retention: SpeechAnalyzer.Options.ModelRetention) async throws -> WhisperModel {
        if var entry = entries[directory] {
            entry.users += 1
            entry.retention = strongest(entry.retention, retention)
            entry.generation += 1
            entries[directory] = entry
            return entry.model
        }
        let task = loading[directory] ?? Task.detached { try WhisperModel(directory: directory) }
        loading[directory] = task
        let model: WhisperModel
        do {
            model = try await task.value
        } catch {
            loading[directory] = nil
            throw error
        }
        loading[directory] = nil
        var entry = entries[directory] ?? Entry(model: model)
        entry.users += 1
        entry.retention = strongest(entry.retention, retention)
        entries[directory] = entry
        return entry.model
    }

    /// A session stopped using the model in `directory`.
    func release(_ directory: URL) {
        guard var entry = entries[directory] else { return }
        entry.users -= 1
        entry.generation += 1
        entries[directory] = entry
        guard entry.users <= 0 else { return }
        switch entry.retention {
        case .whileInUse:
            entries[directory] = nil
        case .lingering:
            let generation = entry.generation
            Task {
                try? await Task.sleep(for: .seconds(Self.lingeringSeconds))
                self.dropIfUnused(directory, generation: generation)
            }
        case .processLifetime:
            break
        }
    }

    /// Unloads every retained model no session is using.
    func endRetention() {
        entries = entries.filter { $0.value.users > 0 }
    }

    /// Whether a model is loaded (for tests).
    func isLoaded(_ directory: URL) -> Bool { entries[directory] != nil }

    private func dropIfUnused(_ directory: URL, generation: Int) {
        if let entry = entries[directory], entry.users <= 0, entry.generation == generation {
            entries[directory] = nil
        }
    }

    private func strongest(_ a: SpeechAnalyzer.Options.ModelRetention,
                           _ b: SpeechAnalyzer.Options.ModelRetention) -> SpeechAnalyzer.Options.ModelRetention {
        let order: [SpeechAnalyzer.Options.ModelRetention] = [.whileInUse, .lingering, .processLifetime]
        return order.firstIndex(of: a)! >= order.firstIndex(of: b)! ? a : b
    }
}
