import Foundation
import SpeechAssets
import SpeechEngine

/// The models a transcriber holds from the process's `ModelCache` while it runs: the one it decodes with and, for
/// volatile previews at another precision (`PreviewDecoding.computeType`), the previews' own. Acquired when the
/// analyzer prepares the transcriber, released once when it finishes.
struct ModelLease {
    /// The session results are decoded with (the strategies know it only as a model family's engine).
    let session: any WindowDecoder & LongFormDecoder
    /// Volatile previews' own session (nil: previews use `session`).
    let previewSession: (any WindowDecoder)?
    /// The catalog id of the model results are decoded with.
    let modelID: String
    private let keys: [ModelCache.Key]

    /// Loads (or shares) the model the plan for `settings` runs (`TranscriptionPlan`: the detecting model when the
    /// language is detected, else the model named, else the locale's installed one that serves the request). Throws
    /// `SFSpeechError`: no model transcribes the locale, it is not installed or not in the catalog (`noModel`, as
    /// Apple's analyzer says of a missing asset), or it cannot do the task.
    static func acquire(for settings: TranscriptionProcessor.Settings, retention: SpeechAnalyzer.Options.ModelRetention,
                        isolation: isolated (any Actor)? = #isolation) async throws -> ModelLease {
        let store = settings.store
        let plan: TranscriptionPlan
        do {
            plan = try TranscriptionPlan(settings.planRequest, store: store)
        } catch let error as ModelAssetError {
            throw SFSpeechError(.noModel, error.description)
        }
        let id = plan.modelID
        guard let key = try ModelCache.Key(installed: id, store: store, computeType: settings.computeType,
                                           threads: settings.threads) else {
            throw SFSpeechError(.noModel, "The model \(id) for \(settings.locale.identifier(.bcp47)) is not installed. "
                + "Install it with AssetInventory.assetInstallationRequest(supporting:) or `openspeech models install \(id)`.")
        }
        let model = try await ModelCache.shared.acquire(key, retention: retention)
        if settings.task == .translate && !model.isMultilingual {
            await ModelCache.shared.release(key)
            throw TranslationRefusal.error(modelID: id, catalog: store.catalog)
        }
        var keys = [key]
        var previewSession: (any WindowDecoder)?
        if settings.volatile, settings.previewSeconds != nil, let preview = settings.previewDecoding,
           let type = preview.computeType(forSession: settings.computeType), key.at(type) != key {
            let previewKey = key.at(type)
            // Previews fall back to the session's model if this one does not load.
            if let previewModel = try? await ModelCache.shared.acquire(previewKey, retention: retention) {
                keys.append(previewKey)
                previewSession = previewModel.makeSession(maxBeams: 1)
            }
        }
        return ModelLease(session: model.makeSession(maxBeams: settings.beamSize), previewSession: previewSession,
                          modelID: id, keys: keys)
    }

    /// Gives the models back to the cache (which keeps or frees them as their retention says).
    func release(isolation: isolated (any Actor)? = #isolation) async {
        for key in keys { await ModelCache.shared.release(key) }
    }
}
