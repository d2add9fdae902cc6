import Foundation
import SpeechAssets

/// Which catalog models language detection and translation use, and which model transcribes a detected language:
/// a pure function of the catalog and of what is installed.
struct LanguageModelChoice: Sendable {
    let catalog: ModelCatalog
    /// Ids of the installed models.
    let installed: Set<String>

    /// Whether a model writes English only (it has no language tokens: it can neither detect nor translate).
    static func isEnglishOnly(_ model: CatalogModel) -> Bool { model.languages == ["en"] }

    /// The multilingual speech models, the preferred first: installed ones, then built-in ones, then the smallest.
    var multilingualModels: [CatalogModel] {
        catalog.models.filter { $0.isTranscriptionModel && $0.languages.count > 1 }.sorted {
            (installed.contains($0.id) ? 0 : 1, ModelCatalog.builtIn.model($0.id) == nil ? 1 : 0, $0.size, $0.id)
                < (installed.contains($1.id) ? 0 : 1, ModelCatalog.builtIn.model($1.id) == nil ? 1 : 0, $1.size, $1.id)
        }
    }

    /// The model that detects the language: `requested` if it is multilingual, else the preferred multilingual one.
    func detectionModelID(requested: String?) -> String? {
        if let requested, let model = catalog.model(requested), model.isTranscriptionModel, model.languages.count > 1 {
            return requested
        }
        return multilingualModels.first?.id
    }

    /// The model to transcribe `language` with in a request that needs `needs`, once detected by
    /// `detectionModelID` (installed): the most accurate installed model that speaks it and serves them, which may be
    /// the detecting one.
    func transcriptionModelID(for language: String, needs: CatalogModel.Capabilities, detectionModelID: String) -> String {
        mostAccurateInstalledModelID(for: language, serving: needs) ?? detectionModelID
    }

    /// The installed speech model that transcribes `language` best and serves `needs` (nil: none does): the most
    /// accurate class (`CatalogModel.accuracyClass`, a model of unknown accuracy after every class); in one class the
    /// model dedicated to fewer languages (English-only before multilingual), then the smaller.
    func mostAccurateInstalledModelID(for language: String, serving needs: CatalogModel.Capabilities) -> String? {
        catalog.models
            .filter { $0.serves(needs) && $0.languages.contains(language) && installed.contains($0.id) }
            .min { ($0.accuracyClass ?? .max, $0.languages.count, $0.size, $0.id)
                    < ($1.accuracyClass ?? .max, $1.languages.count, $1.size, $1.id) }?.id
    }

    /// The model for `locale` in a request that needs `needs`, as the models are installed now: the most accurate
    /// installed model that speaks its language and serves them (`favouringLatency`: the locale's default first, when
    /// installed), else its default (nil: no model speaks it).
    func installedModelID(for locale: Locale, needs: CatalogModel.Capabilities, favouringLatency: Bool) -> String? {
        guard let preferred = LocaleModelResolver(catalog: catalog).modelID(for: locale, serving: needs) else { return nil }
        if favouringLatency && installed.contains(preferred) { return preferred }
        return LocaleModelResolver.whisperLanguage(of: locale).flatMap { mostAccurateInstalledModelID(for: $0, serving: needs) }
            ?? preferred
    }
}
