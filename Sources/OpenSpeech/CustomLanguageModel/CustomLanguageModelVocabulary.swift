import Foundation

/// What recognition takes from a prepared custom language model: its vocabulary as contextual strings.
enum CustomLanguageModelVocabulary {
    /// At most this many strings by default. Decoding boosts every one (a trie of their tokens, whose cost grows
    /// little with its size); the prompt takes them only when they are few (`PromptComposition`).
    static let defaultLimit = 1_000
    /// At most this many characters by default, the strings joined by ", ".
    static let defaultCharacterLimit = 30_000

    /// The vocabulary of the model `configuration` names, best first: its terms (graphemes, in order), then its
    /// phrases by descending count; each once. At most `limit` strings (scaled by the configuration's weight, 0
    /// to 1) whose total length, joined by ", ", is at most `characterLimit` (a string that does not fit is
    /// skipped, shorter ones after it may fit).
    ///
    /// Throws `SFSpeechError(.malformedSupplementalModel)` with what to do if the language model file is missing
    /// or damaged (or the vocabulary file, when the configuration names one and it exists but is damaged).
    static func contextualStrings(for configuration: SFSpeechLanguageModel.Configuration, limit: Int = defaultLimit,
                                  characterLimit: Int = defaultCharacterLimit) throws -> [String] {
        let remedy = "Prepare it with SFSpeechLanguageModel.prepareCustomLanguageModel(for:clientIdentifier:configuration:) "
            + "before recognizing with it."
        let url = configuration.languageModel
        let model = try CustomLanguageModelFiles.decode(
            CustomLanguageModelFiles.LanguageModel.self, formatName: CustomLanguageModelFiles.LanguageModel.formatName,
            from: try CustomLanguageModelFiles.read(url, what: "custom language model", remedy: remedy),
            at: url, what: "prepared custom language model", remedy: remedy)
        var terms = model.terms.map(\.grapheme)
        if let vocabularyURL = configuration.vocabulary, FileManager.default.fileExists(atPath: vocabularyURL.path) {
            let vocabulary = try CustomLanguageModelFiles.decode(
                CustomLanguageModelFiles.Vocabulary.self, formatName: CustomLanguageModelFiles.Vocabulary.formatName,
                from: try CustomLanguageModelFiles.read(vocabularyURL, what: "custom vocabulary", remedy: remedy),
                at: vocabularyURL, what: "prepared custom vocabulary", remedy: remedy)
            terms += vocabulary.terms.map(\.grapheme)
        }
        let phrases = model.phrases.filter { $0.count > 0 }
            .enumerated().sorted { $0.element.count != $1.element.count ? $0.element.count > $1.element.count : $0.offset < $1.offset }
            .map(\.element.phrase)

        let weight = min(1, max(0, configuration.weight?.doubleValue ?? 1))
        let cap = Int((Double(max(0, limit)) * weight).rounded(.up))
        var seen = Set<String>()
        var strings: [String] = []
        var characters = 0
        for candidate in terms + phrases {
            guard strings.count < cap else { break }
            let string = TemplateExpansion.normalized(candidate)
            guard !string.isEmpty, !seen.contains(string.lowercased()) else { continue }
            let added = string.count + (strings.isEmpty ? 0 : 2)
            guard characters + added <= characterLimit else { continue }
            seen.insert(string.lowercased())
            strings.append(string)
            characters += added
        }
        return strings
    }
}
