import Foundation
import SpeechAssets

/// What a file transcription runs, decided once from what was asked and what is installed: the model that runs (or,
/// when the language is detected, the model that hears it, and the rule for the one that then transcribes), how the
/// language is decided, and the models to have installed before any audio is read. A pure value: the same request,
/// catalog and installed set give the same plan (`TranscriptionPlanTests` runs it as a table, without a model).
/// `FileTranscriber` asks it everything it asked itself before; every front end reaches it through one.
struct TranscriptionPlan: Sendable {
    /// What was asked.
    struct Request: Sendable, Equatable {
        var locale: Locale
        var modelID: String?
        var task: SpeechTranscriber.TranscriptionTask
        var detectsLanguage: Bool
        var detectsLanguagePerWindow: Bool
        var detectsSpeech: Bool
        /// Live transcription: with no model named, the locale's default (chosen for speed) runs when installed,
        /// not the most accurate installed model, which may not keep up with speech on a CPU.
        var favoursLatency = false
        /// What the request asks of the model beyond its language (a prompt, alternatives): with no model named,
        /// only a model that serves it runs (`CatalogModel.serves`).
        var needs: CatalogModel.Capabilities = []
    }

    /// How the language of the speech is decided.
    enum LanguageDecision: Sendable, Equatable {
        /// The request's locale.
        case given
        /// Heard in each input's first speech by `modelID`, before the input is transcribed (`modelID(forDetected:)`).
        case detectedFirst
        /// Heard in every 30 s window by `modelID`, which transcribes them all.
        case detectedPerWindow
        /// An English-only model was named: the speech is transcribed in English, and checked by `checker` (the
        /// installed multilingual model, nil when there is none) only to warn when it is not English.
        case checkedForEnglish(checker: String?)
    }

    let request: Request
    /// The model that runs now: the one that transcribes, or with `.detectedFirst` the one that detects.
    let modelID: String
    let language: LanguageDecision
    /// The catalog ids to have installed before any audio: the transcription's model (or the detecting one), then the
    /// speech detector's. The first may differ from `modelID`: the locale's default is what gets installed, while the
    /// most accurate installed model that speaks the language runs (`LanguageModelChoice.installedModelID`).
    let requiredModelIDs: [String]
    private let choice: LanguageModelChoice

    /// The plan for `request` with `catalog`, `installed` the ids of the installed models. Throws
    /// `ModelAssetError.unknownModel` for a model the catalog lacks; `SFSpeechError(.noModel)` for one that is not a
    /// speech-to-text model of a family this build runs; `SFSpeechError(.cannotAllocateUnsupportedLocale)`
    /// for a locale no model covers and for translation by an English-only model; `SFSpeechError(.noModel)` for
    /// language detection when the catalog has no multilingual model.
    init(_ request: Request, catalog: ModelCatalog, installed: Set<String>) throws {
        self.request = request
        choice = LanguageModelChoice(catalog: catalog, installed: installed)
        let named = request.modelID.map { ($0, catalog.model($0)) }
        if let (id, model) = named, model == nil {
            throw ModelAssetError.unknownModel(id: id, known: catalog.models.filter(\.isTranscriptionModel).map(\.id))
        }
        if let (id, model) = named, let model, !model.isTranscriptionModel {
            throw SFSpeechError(.noModel, "\(id) is a \(model.family) model, which this build does not transcribe with "
                + "(it runs \(CatalogModel.transcriptionFamilies.sorted().joined(separator: ", ")) models); "
                + "see `openspeech models list`.")
        }
        let forcesEnglish = named?.1.map(LanguageModelChoice.isEnglishOnly) ?? false
        if let (id, _) = named, forcesEnglish, request.task == .translate {
            throw TranslationRefusal.error(modelID: id, catalog: catalog)
        }
        let detector = request.detectsSpeech ? [SpeechDetector.modelID] : []
        let resolver = LocaleModelResolver(catalog: catalog)

        if request.detectsLanguage && !forcesEnglish {
            guard let id = choice.detectionModelID(requested: request.modelID) else {
                throw SFSpeechError(.noModel, "Language detection needs a multilingual model and the catalog has none; "
                    + "give the language (a locale).")
            }
            modelID = id
            language = request.detectsLanguagePerWindow ? .detectedPerWindow : .detectedFirst
            requiredModelIDs = [id] + detector
            return
        }
        // Translation with no model named, where the locale's default is English-only: the multilingual model.
        let translating = request.task == .translate && request.modelID == nil
            && resolver.model(for: request.locale, serving: request.needs).map(LanguageModelChoice.isEnglishOnly) == true
            ? choice.detectionModelID(requested: nil) : nil
        guard let id = request.modelID ?? translating ?? resolver.modelID(for: request.locale, serving: request.needs) else {
            throw SFSpeechError(.cannotAllocateUnsupportedLocale, "No model transcribes \(request.locale.identifier); "
                + "see `openspeech models list` for the languages the catalog covers.")
        }
        guard catalog.model(id) != nil else { throw ModelAssetError.unknownModel(id: id, known: catalog.models.map(\.id)) }
        requiredModelIDs = [id] + detector
        if request.detectsLanguage {
            language = .checkedForEnglish(checker: choice.multilingualModels.first { installed.contains($0.id) }?.id)
            modelID = id
        } else {
            language = .given
            modelID = request.modelID == nil && translating == nil
                ? choice.installedModelID(for: request.locale, needs: request.needs,
                                         favouringLatency: request.favoursLatency) ?? id
                : id
        }
    }

    /// The plan for `request` with `store`'s catalog and the models installed in it now. Throws as `init` does.
    init(_ request: Request, store: ModelStore) throws {
        try self.init(request, catalog: store.catalog, installed: Set(store.installedModelIDs))
    }

    /// The model that transcribes speech detected as `language` (nil: none was heard) with `.detectedFirst`: the
    /// model named, else for translation the detecting model, else the most accurate installed model that speaks the
    /// language and serves the request's needs (the detecting model knows every language).
    func modelID(forDetected language: String?) -> String {
        if let named = request.modelID { return named }
        guard let language, request.task == .transcribe else { return modelID }
        return choice.transcriptionModelID(for: language, needs: request.needs, detectionModelID: modelID)
    }
}
