import Foundation

extension SFSpeechLanguageModel {
    /// Where a prepared custom language model and its vocabulary are, as Apple's
    /// `SFSpeechLanguageModel.Configuration`: `prepareCustomLanguageModel` writes them there, and recognition
    /// (`SFSpeechRecognitionRequest.customizedLanguageModel`,
    /// `DictationTranscriber.ContentHint.customizedLanguage(modelConfiguration:)`) reads them from there.
    ///
    /// Ours: `weight` (0 to 1) scales how many of the model's phrases recognition is given as context; nil is 1.
    public final class Configuration: NSObject, NSCopying, Sendable {
        /// The prepared language model file.
        public let languageModel: URL
        /// The prepared vocabulary file, if any.
        public let vocabulary: URL?
        /// How strongly the customization counts, from 0 to 1 (nil: fully).
        public let weight: NSNumber?

        /// A configuration with only a language model file.
        public convenience init(languageModel: URL) {
            self.init(languageModel: languageModel, vocabulary: nil, weight: nil)
        }

        /// A configuration with a language model file and a vocabulary file.
        public convenience init(languageModel: URL, vocabulary: URL?) {
            self.init(languageModel: languageModel, vocabulary: vocabulary, weight: nil)
        }

        /// A configuration with a language model file, a vocabulary file and a weight (0 to 1).
        public init(languageModel: URL, vocabulary: URL?, weight: NSNumber?) {
            self.languageModel = languageModel
            self.vocabulary = vocabulary
            self.weight = weight
        }

        /// Returns the configuration itself: it is immutable.
        public func copy(with zone: NSZone? = nil) -> Any { self }

        /// Whether `object` is a configuration with the same files and weight.
        public override func isEqual(_ object: Any?) -> Bool {
            guard let other = object as? Configuration else { return false }
            return languageModel == other.languageModel && vocabulary == other.vocabulary
                && weight?.doubleValue == other.weight?.doubleValue
        }

        /// A hash of the files and weight, consistent with `isEqual(_:)`.
        public override var hash: Int {
            var hasher = Hasher()
            hasher.combine(languageModel)
            hasher.combine(vocabulary)
            hasher.combine(weight?.doubleValue)
            return hasher.finalize()
        }

        /// The files' paths and the weight, for debugging.
        public override var description: String {
            "SFSpeechLanguageModel.Configuration(languageModel: \(languageModel.path), vocabulary: "
                + "\(vocabulary?.path ?? "nil"), weight: \(weight.map { "\($0.doubleValue)" } ?? "nil"))"
        }
    }
}
