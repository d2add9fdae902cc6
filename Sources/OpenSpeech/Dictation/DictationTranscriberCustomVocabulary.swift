import Foundation

/// Gives a transcriber the vocabulary of its custom language models
/// (`DictationTranscriber.ContentHint.customizedLanguage(modelConfiguration:)`): when the analyzer prepares the
/// module, the prepared models' terms and most frequent phrases (`CustomLanguageModelVocabulary`) are added to
/// every analysis context the transcriber is given, as contextual strings. The rest is passed through.
actor CustomVocabularyProcessor: ModuleProcessor {

    private let transcription: any ModuleProcessor
    private let configurations: [SFSpeechLanguageModel.Configuration]
    private var vocabulary: [String]?

    init(wrapping transcription: any ModuleProcessor, configurations: [SFSpeechLanguageModel.Configuration]) {
        self.transcription = transcription
        self.configurations = configurations
    }

    /// Loads the models' vocabulary (throwing `SFSpeechError(.malformedSupplementalModel)` if a model was not
    /// prepared or is damaged), then prepares the transcriber with it in the context.
    func prepare(context: AnalysisContext, retention: SpeechAnalyzer.Options.ModelRetention) async throws {
        if vocabulary == nil {
            var strings: [String] = []
            for configuration in configurations {
                for string in try CustomLanguageModelVocabulary.contextualStrings(for: configuration)
                where !strings.contains(string) {
                    strings.append(string)
                }
            }
            vocabulary = strings
        }
        try await transcription.prepare(context: withVocabulary(context), retention: retention)
    }

    func setContext(_ context: AnalysisContext) async {
        await transcription.setContext(withVocabulary(context))
    }

    func append(_ samples: [Float], at start: Int64) async throws {
        try await transcription.append(samples, at: start)
    }

    var resultsFinalThrough: Int64? { get async { await transcription.resultsFinalThrough } }

    func finalize(through end: Int64?) async throws {
        try await transcription.finalize(through: end)
    }

    func cancel(before start: Int64) async {
        await transcription.cancel(before: start)
    }

    func finish(throwing error: (any Error)?) async {
        await transcription.finish(throwing: error)
    }

    nonisolated var publishedSpeechRegions: SpeechRegionLog? { transcription.publishedSpeechRegions }

    func follow(speechRegions: SpeechRegionLog?) async {
        await transcription.follow(speechRegions: speechRegions)
    }

    /// A copy of `context` with the models' strings added (before the context's own: the prompt keeps its end
    /// when it is too long).
    private func withVocabulary(_ context: AnalysisContext) -> AnalysisContext {
        guard let vocabulary, !vocabulary.isEmpty else { return context }
        let merged = AnalysisContext()
        merged.contextualStrings = context.contextualStrings.merging([.customLanguageModel: vocabulary]) { own, _ in own }
        merged.userData = context.userData
        return merged
    }
}
