extension SFCustomLanguageModelData {
    /// A phrase likely to be spoken and how often, as Apple's `PhraseCount`: the count weighs the phrase against
    /// the others.
    ///
    /// Ours: phrases with higher counts come first among the contextual strings recognition is given; a phrase
    /// inserted several times counts the sum.
    public struct PhraseCount: Sendable, Hashable, Codable, CustomStringConvertible, DataInsertable {
        /// The text, as it should be transcribed.
        public let phrase: String
        /// How often the phrase occurs, relative to the other phrases.
        public let count: Int

        /// A phrase with how often it occurs.
        public init(phrase: String, count: Int) {
            self.phrase = phrase
            self.count = count
        }

        /// The phrase followed by its count in parentheses.
        public var description: String { "\(phrase) (\(count))" }

        /// Adds the phrase count to `data`.
        public func insert(data: SFCustomLanguageModelData) {
            data.insert(phraseCount: self)
        }
    }
}
