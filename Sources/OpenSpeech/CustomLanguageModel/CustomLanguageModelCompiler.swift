import Foundation

/// What `SFSpeechLanguageModel.prepareCustomLanguageModel` does: reads training data exported by
/// `SFCustomLanguageModelData.export(to:)` and writes the language model (distinct phrases with summed counts,
/// most frequent first, and the terms) and, if the configuration names one, the vocabulary (the terms).
enum CustomLanguageModelCompiler {
    static let remedy = "Export it with SFCustomLanguageModelData.export(to:) and pass that file's URL."

    static func prepare(asset: URL, clientIdentifier: String, configuration: SFSpeechLanguageModel.Configuration,
                        ignoresCache: Bool) throws {
        let bytes = try CustomLanguageModelFiles.read(asset, what: "custom language model data", remedy: remedy)
        let data = try CustomLanguageModelFiles.decode(
            CustomLanguageModelFiles.TrainingData.self, formatName: CustomLanguageModelFiles.TrainingData.formatName,
            from: bytes, at: asset, what: "custom language model data file", remedy: remedy)
        let digest = CustomLanguageModelFiles.digest(bytes)
        if !ignoresCache, isUpToDate(configuration, digest: digest, clientIdentifier: clientIdentifier) { return }

        let terms = distinctTerms(data.terms)
        let model = CustomLanguageModelFiles.LanguageModel(
            locale: data.locale, identifier: data.identifier, version: data.version,
            clientIdentifier: clientIdentifier, sourceDigest: digest, phrases: distinctPhrases(data.phraseCounts),
            terms: terms)
        try AtomicFileWriter.write(try CustomLanguageModelFiles.encode(model), to: configuration.languageModel,
                                   what: "custom language model")
        if let vocabulary = configuration.vocabulary {
            let file = CustomLanguageModelFiles.Vocabulary(sourceDigest: digest, terms: terms)
            try AtomicFileWriter.write(try CustomLanguageModelFiles.encode(file), to: vocabulary,
                                       what: "custom vocabulary")
        }
    }

    /// Whether the configuration's files were prepared from the data with `digest` for `clientIdentifier`.
    static func isUpToDate(_ configuration: SFSpeechLanguageModel.Configuration, digest: String,
                           clientIdentifier: String) -> Bool {
        func load<T: Decodable>(_ type: T.Type, _ url: URL) -> T? {
            (try? Data(contentsOf: url)).flatMap { try? JSONDecoder().decode(type, from: $0) }
        }
        guard let model = load(CustomLanguageModelFiles.LanguageModel.self, configuration.languageModel),
              model.format == CustomLanguageModelFiles.LanguageModel.formatName,
              model.sourceDigest == digest, model.clientIdentifier == clientIdentifier else { return false }
        guard let url = configuration.vocabulary else { return true }
        guard let vocabulary = load(CustomLanguageModelFiles.Vocabulary.self, url) else { return false }
        return vocabulary.format == CustomLanguageModelFiles.Vocabulary.formatName && vocabulary.sourceDigest == digest
    }

    /// Each phrase once (spacing normalized, empty ones and non-positive counts left out) with its counts summed,
    /// most frequent first, ties in order of first appearance.
    static func distinctPhrases(_ phraseCounts: [SFCustomLanguageModelData.PhraseCount]) -> [SFCustomLanguageModelData.PhraseCount] {
        var totals: [String: (count: Int, first: Int)] = [:]
        for (index, item) in phraseCounts.enumerated() where item.count > 0 {
            let phrase = TemplateExpansion.normalized(item.phrase)
            guard !phrase.isEmpty else { continue }
            let total = totals[phrase]
            totals[phrase] = ((total?.count ?? 0).addingReportingOverflow(item.count).overflow
                                  ? Int.max : (total?.count ?? 0) + item.count,
                              total?.first ?? index)
        }
        return totals.sorted { $0.value.count != $1.value.count ? $0.value.count > $1.value.count : $0.value.first < $1.value.first }
            .map { .init(phrase: $0.key, count: $0.value.count) }
    }

    /// Each term once by grapheme (spacing normalized, empty ones left out), its pronunciations merged, in order
    /// of first appearance.
    static func distinctTerms(_ terms: [SFCustomLanguageModelData.CustomPronunciation]) -> [SFCustomLanguageModelData.CustomPronunciation] {
        var order: [String] = []
        var phonemes: [String: [String]] = [:]
        for term in terms {
            let grapheme = TemplateExpansion.normalized(term.grapheme)
            guard !grapheme.isEmpty else { continue }
            if phonemes[grapheme] == nil { order.append(grapheme) }
            var merged = phonemes[grapheme] ?? []
            for pronunciation in term.phonemes where !merged.contains(pronunciation) { merged.append(pronunciation) }
            phonemes[grapheme] = merged
        }
        return order.map { .init(grapheme: $0, phonemes: phonemes[$0] ?? []) }
    }
}
