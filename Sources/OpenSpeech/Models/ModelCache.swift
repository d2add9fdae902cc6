import Foundation
import SpeechAssets
import SpeechAudio
import SpeechEngine

/// The process-wide cache of loaded models (of any family the engine runs), shared by every session, honouring each
/// session's `ModelRetention`: a model stays loaded while a session uses it, then for `lingeringSeconds`
/// (`.lingering`) or until `endRetention()` (`.processLifetime`).
actor ModelCache {
    static let shared = ModelCache()
    static let lingeringSeconds: Double = 60

    private struct Entry {
        var model: any SpeechModel
        var users = 0
        var retention: SpeechAnalyzer.Options.ModelRetention = .whileInUse
        var generation = 0
    }

    /// A model folder of a family loaded at a compute type, its work spread over `threads` (nil: the engine's default).
    struct Key: Hashable, Sendable {
        var family: SpeechModelFamily
        var directory: URL
        var computeType: ComputeType
        var threads: Int?
    }

    private var entries: [Key: Entry] = [:]
    private var loading: [Key: Task<any SpeechModel, any Error>] = [:]

    /// The model in `key.directory` at `key.computeType`, loaded once however many sessions ask at the same time.
    func acquire(_ key: Key, retention: SpeechAnalyzer.Options.ModelRetention) async throws -> any SpeechModel {
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
                try key.family.load(directory: key.directory, threads: key.threads, computeType: key.computeType)
            }
        }
        loading[key] = task
        let model: any SpeechModel
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

extension ModelCache.Key {
    /// The key of the installed model `id` (its family the catalog's), nil when it is not installed. Throws
    /// `SFSpeechError(.noModel)` for a model of a family this build's engine does not run.
    init?(installed id: String, store: ModelStore, computeType: ComputeType, threads: Int?) throws {
        guard let directory = store.installedDirectory(for: id) else { return nil }
        guard let family = store.engineFamily(of: id) else {
            let name = store.catalog.model(id)?.family ?? "?"
            throw SFSpeechError(.noModel, "The model \(id) is of the family \(name), which this build of OpenSpeech does "
                + "not run (it runs \(SpeechModelFamily.allCases.map(\.rawValue).joined(separator: ", "))).")
        }
        self.init(family: family, directory: directory, computeType: computeType, threads: threads)
        self = at(computeType)
    }

    /// This model at `computeType`: the same key for a family whose products run as its weights are stored (loaded
    /// once whatever the compute type asked).
    func at(_ computeType: ComputeType) -> ModelCache.Key {
        var key = self
        key.computeType = family.hasComputeTypes ? computeType : .default
        return key
    }
}

extension ModelStore {
    /// The engine's family for catalog model `id` (one the catalog lacks, a folder added by hand: Whisper); nil for
    /// a family this build does not run.
    func engineFamily(of id: String) -> SpeechModelFamily? {
        SpeechModelFamily(rawValue: catalog.model(id)?.family ?? SpeechModelFamily.whisper.rawValue)
    }

    /// Whether a compute type applies to model `id`: Whisper's products run at any, Moonshine's as its weights are
    /// stored (`SpeechModelFamily.hasComputeTypes`). OpenSpeech extension.
    public func computeTypeApplies(to id: String) -> Bool { engineFamily(of: id)?.hasComputeTypes ?? true }
}
