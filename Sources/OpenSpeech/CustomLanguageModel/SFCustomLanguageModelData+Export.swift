import Foundation

extension SFCustomLanguageModelData {
    /// Writes the data to a file for `SFSpeechLanguageModel.prepareCustomLanguageModel`, as Apple's
    /// `export(to:)`: every phrase count (generators run to the end), and the terms.
    ///
    /// Ours writes JSON, whole or not at all (a temporary file renamed over `path`; missing folders are created).
    /// Throws `SFSpeechError` with a sentence saying what to do when the file cannot be written, and
    /// `SFSpeechError(.undefinedTemplateClassName)` when a template names a class that is not defined.
    public func export(to path: URL) async throws {
        let (entries, terms) = contents.withLock { ($0.entries, $0.terms) }
        var phraseCounts: [PhraseCount] = []
        for entry in entries {
            switch entry {
            case .phraseCount(let phraseCount): phraseCounts.append(phraseCount)
            case .generator(let generator):
                let iterator = generator.makeAsyncIterator()
                while let phraseCount = try await iterator.next() {
                    phraseCounts.append(phraseCount)
                }
            }
        }
        let file = CustomLanguageModelFiles.TrainingData(
            locale: locale.identifier(.bcp47), identifier: identifier, version: version,
            phraseCounts: phraseCounts, terms: terms)
        try AtomicFileWriter.write(try CustomLanguageModelFiles.encode(file), to: path,
                                   what: "custom language model data")
    }
}
