import SpeechAssets

/// The error for translation asked of an English-only model: it names a multilingual model that translates.
enum TranslationRefusal {
    static func error(modelID: String, catalog: ModelCatalog) -> SFSpeechError {
        let other = LanguageModelChoice(catalog: catalog, installed: []).multilingualModels.first?.id ?? "whisper-base"
        return SFSpeechError(.cannotAllocateUnsupportedLocale,
                             "\(modelID) is an English-only model and cannot translate; translation needs a "
                             + "multilingual model such as \(other) (`--model \(other)`).")
    }
}
