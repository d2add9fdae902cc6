import Foundation

/// Custom language models, as Apple's `SFSpeechLanguageModel`: only the configuration type, so that
/// `DictationTranscriber.ContentHint.customizedLanguage(modelConfiguration:)` compiles.
///
/// Differs from Apple's: there is no `prepareCustomLanguageModel`; a configuration is accepted and stored, and
/// the Whisper models do not use it. Put phrases in `AnalysisContext.contextualStrings` to bias recognition.
public enum SFSpeechLanguageModel {
    /// Where a custom language model and its vocabulary are, as in Apple's Speech.
    public struct Configuration: Sendable, Hashable {
        public let languageModel: URL
        public let vocabulary: URL?
        public let weight: Double?

        public init(languageModel: URL, vocabulary: URL? = nil, weight: Double? = nil) {
            self.languageModel = languageModel
            self.vocabulary = vocabulary
            self.weight = weight
        }
    }
}
