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

    /// The model to transcribe `language` with, once detected by `detectionModelID`: the locale's default model
    /// (an English-only one for English) when installed, else the detection model, which knows the language.
    func transcriptionModelID(for language: String, detectionModelID: String) -> String {
        let resolver = LocaleModelResolver(catalog: catalog)
        if let id = resolver.modelID(for: Locale(identifier: language)), installed.contains(id) { return id }
        return detectionModelID
    }
}
