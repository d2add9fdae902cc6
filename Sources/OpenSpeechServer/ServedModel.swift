import Foundation
import OpenSpeech
import SpeechAssets

/// The `model` field's rule: OpenAI's model names (or none) mean the server's default model (both routes). A Realtime
/// session, which names its one model up front, resolves it here (`modelID(requested:locale:configuration:)`): the
/// server's default when it speaks the language, else the language's catalog default; a catalog id must name a
/// transcription model that speaks the language. The REST routes leave the choice to the library's plan
/// (`TranscriptionRequest`). Each caller words the refusal in its own protocol's errors.
enum ServedModel {
    /// OpenAI's model names, all served by the server's default model.
    static let openAINames: Set<String> = ["whisper-1", "gpt-4o-transcribe", "gpt-4o-mini-transcribe"]

    /// Why no model serves a request.
    enum Refusal: Error {
        /// The name is neither OpenAI's nor a catalog transcription model's.
        case unknownModel
        /// No model of the catalog transcribes the language.
        case noModelForLanguage
        /// The model named does not transcribe the language; these are the first of its languages.
        case languageNotSpoken(languages: [String])
    }

    /// Whether `requested` asks for the server's default model (empty, or one of OpenAI's names).
    static func meansDefault(_ requested: String) -> Bool { requested.isEmpty || openAINames.contains(requested) }

    /// The catalog model that transcribes `locale` for the `model` field `requested`, in a session that needs
    /// `needs` (a prompt: the language's default is then one that takes it).
    static func modelID(requested: String, locale: Locale, needs: CatalogModel.Capabilities = [],
                        configuration: ServerConfiguration) -> Result<String, Refusal> {
        let catalog = configuration.store.catalog
        let language = LocaleModelResolver.whisperLanguage(of: locale) ?? "en"
        if meansDefault(requested) {
            if let id = configuration.defaultModelID, catalog.model(id)?.languages.contains(language) == true {
                return .success(id)
            }
            return LocaleModelResolver(catalog: catalog).modelID(for: locale, serving: needs).map { .success($0) }
                ?? .failure(.noModelForLanguage)
        }
        guard let model = catalog.model(requested), model.isTranscriptionModel else { return .failure(.unknownModel) }
        guard model.languages.contains(language) else {
            return .failure(.languageNotSpoken(languages: Array(model.languages.prefix(10))))
        }
        return .success(requested)
    }
}
