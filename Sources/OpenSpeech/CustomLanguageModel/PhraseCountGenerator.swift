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
        public typealias Element = PhraseCount
        public typealias AsyncIterator = Iterator

        /// The iterator of a generator: subclasses override `next()`. This base ends at once.
        open class Iterator: AsyncIteratorProtocol {
            public typealias Element = PhraseCount

            public init() {}

            /// The next phrase count, or nil at the end.
            open func next() async throws -> PhraseCount? { nil }
        }

        public init() {}

        public required init(from decoder: any Decoder) throws {}

        open func encode(to encoder: any Encoder) throws {}

        open func makeAsyncIterator() -> Iterator { Iterator() }

        public func insert(data: SFCustomLanguageModelData) {
            data.insert(phraseCountGenerator: self)
        }

        /// Equal contents. The base compares identity; `TemplatePhraseCountGenerator` its templates and classes.
        func isEqual(to other: PhraseCountGenerator) -> Bool { self === other }

        open func hash(into hasher: inout Hasher) {
            hasher.combine(ObjectIdentifier(self))
        }

        public static func == (lhs: PhraseCountGenerator, rhs: PhraseCountGenerator) -> Bool {
            lhs.isEqual(to: rhs)
        }
    }
}
