extension SFCustomLanguageModelData {
    /// The base of classes that produce phrase counts as an asynchronous sequence, as Apple's abstract
    /// `PhraseCountGenerator`: subclasses override `makeAsyncIterator()` to return their own `Iterator` subclass.
    /// `TemplatePhraseCountGenerator` is the one Speech provides. This base produces nothing.
    ///
    /// `SFCustomLanguageModelData.export(to:)` runs each inserted generator to the end.
    ///
    /// `@unchecked Sendable` (an open class cannot be checked): the base stores nothing; subclasses keep their state
    /// behind a lock, as `TemplatePhraseCountGenerator` does.
    open class PhraseCountGenerator: AsyncSequence, DataInsertable, Codable, Hashable, @unchecked Sendable {
        /// A generator produces phrase counts.
        public typealias Element = PhraseCount
        /// The generator's iterator class, which subclasses override.
        public typealias AsyncIterator = Iterator

        /// The iterator of a generator: subclasses override `next()`. This base ends at once.
        open class Iterator: AsyncIteratorProtocol {
            /// An iterator produces phrase counts.
            public typealias Element = PhraseCount

            /// An iterator; this base one produces nothing.
            public init() {}

            /// The next phrase count, or nil at the end.
            open func next() async throws -> PhraseCount? { nil }
        }

        /// A generator; this base one produces nothing.
        public init() {}

        /// Decodes a generator; the base has nothing to decode.
        public required init(from decoder: any Decoder) throws {}

        /// Encodes the generator; the base writes nothing, and subclasses encode their own state.
        open func encode(to encoder: any Encoder) throws {}

        /// A new iterator over the generator's phrase counts; the base's ends at once.
        open func makeAsyncIterator() -> Iterator { Iterator() }

        /// Adds the generator to `data`, which runs it to the end when exported.
        public func insert(data: SFCustomLanguageModelData) {
            data.insert(phraseCountGenerator: self)
        }

        /// Equal contents. The base compares identity; `TemplatePhraseCountGenerator` its templates and classes.
        func isEqual(to other: PhraseCountGenerator) -> Bool { self === other }

        /// Hashes the generator; the base hashes its identity.
        open func hash(into hasher: inout Hasher) {
            hasher.combine(ObjectIdentifier(self))
        }

        /// Whether two generators have the same contents: the same object for the base class.
        public static func == (lhs: PhraseCountGenerator, rhs: PhraseCountGenerator) -> Bool {
            lhs.isEqual(to: rhs)
        }
    }
}
