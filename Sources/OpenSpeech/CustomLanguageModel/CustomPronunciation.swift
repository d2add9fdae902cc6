extension SFCustomLanguageModelData {
    /// A word to add to the vocabulary with how it sounds, as Apple's `CustomPronunciation`: the grapheme is the
    /// written form, the phonemes its pronunciations in X-SAMPA (see `supportedPhonemes(locale:)`).
    ///
    /// Ours: the grapheme is given to recognition as a contextual string (before any phrase), which makes the
    /// model likelier to spell it as written. The phonemes are kept in the exported and prepared files but not
    /// used: Whisper models have no pronunciation lexicon.
    public struct CustomPronunciation: Sendable, Hashable, Codable, CustomStringConvertible, DataInsertable {
        /// The term as it should appear in transcriptions.
        public let grapheme: String
        /// Its pronunciations, each an X-SAMPA string of space-separated symbols ("w I n aU @`").
        public let phonemes: [String]

        /// A term written `grapheme`, pronounced as any of `phonemes` (X-SAMPA strings).
        public init(grapheme: String, phonemes: [String]) {
            self.grapheme = grapheme
            self.phonemes = phonemes
        }

        /// The grapheme followed by its pronunciations in brackets, separated by ` | `.
        public var description: String { "\(grapheme) [\(phonemes.joined(separator: " | "))]" }

        /// Adds the term to `data`'s vocabulary.
        public func insert(data: SFCustomLanguageModelData) {
            data.insert(term: self)
        }
    }
}
