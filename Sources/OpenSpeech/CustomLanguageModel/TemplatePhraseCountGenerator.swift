import Synchronization

extension SFCustomLanguageModelData {
    /// Phrase counts from templates, as Apple's `TemplatePhraseCountGenerator`: define classes of words with
    /// `define(className:values:)`, add templates with `insert(template:count:)` ("move <piece> to <square>"); each
    /// template stands for every phrase its `<class>` placeholders can make (each placeholder takes each of its
    /// class's values; a class used twice varies independently), and its count is shared among those phrases.
    ///
    /// Iterating it throws `SFSpeechError(.undefinedTemplateClassName)` when a template names a class that is not
    /// defined. Ours shares a count of `c` among `n` phrases as `c / n` each and one more for the first `c % n`
    /// (the first placeholder varies slowest); if `c < n` only the first `c` phrases are produced.
    /// `@unchecked Sendable`: its only stored state is the `Mutex` `state`.
    public final class TemplatePhraseCountGenerator: PhraseCountGenerator, @unchecked Sendable {
        /// A template and the total count of the phrases it makes, as Apple's `Template`.
        public struct Template: Sendable, Hashable, Codable, TemplateInsertable {
            /// The text, with class names in angle brackets ("<piece> to <square>").
            public let body: String
            /// The total count of the phrases the template makes.
            public let count: Int

            /// A template with this body and total count.
            public init(_ body: String, count: Int) {
                self.body = body
                self.count = count
            }

            /// Adds the template to `generator`.
            public func insert(generator: TemplatePhraseCountGenerator) {
                generator.insert(template: body, count: count)
            }
        }

        /// Produces the phrases of templates in order, as Apple's `TemplatePhraseCountGenerator.Iterator`.
        public final class Iterator: PhraseCountGenerator.Iterator {
            private let templates: [Template]
            private let templateClasses: [String: [String]]
            private var templateIndex = 0
            private var expansion: TemplateExpansion?
            private var phraseIndex = 0

            /// An iterator over the phrases of `templates`, in order, filling placeholders from `templateClasses`.
            public init(templates: [Template], templateClasses: [String: [String]]) {
                self.templates = templates
                self.templateClasses = templateClasses
            }

            /// The next phrase count; throws `SFSpeechError(.undefinedTemplateClassName)` on a template naming a
            /// class that is not defined.
            public override func next() async throws -> PhraseCount? {
                while true {
                    if let expansion, phraseIndex < expansion.produced {
                        defer { phraseIndex += 1 }
                        return expansion.phrase(at: phraseIndex)
                    }
                    guard templateIndex < templates.count else { return nil }
                    expansion = try TemplateExpansion(templates[templateIndex], classes: templateClasses)
                    templateIndex += 1
                    phraseIndex = 0
                }
            }
        }

        private struct State: Sendable, Hashable, Codable {
            var templates: [Template] = []
            var classes: [String: [String]] = [:]
        }

        private let state: Mutex<State>

        /// A generator with no classes and no templates.
        public override init() {
            state = Mutex(State())
            super.init()
        }

        /// Decodes a generator's templates and classes.
        public required init(from decoder: any Decoder) throws {
            state = Mutex(try State(from: decoder))
            super.init()
        }

        /// Encodes the generator's templates and classes.
        public override func encode(to encoder: any Encoder) throws {
            try snapshot.encode(to: encoder)
        }

        private var snapshot: State { state.withLock { $0 } }

        /// Defines (or redefines) a class: the values a `<className>` placeholder takes.
        public func define(className: String, values: [String]) {
            state.withLock { $0.classes[className] = values }
        }

        /// Adds a template whose phrases together have `count`.
        public func insert(template: String, count: Int) {
            state.withLock { $0.templates.append(Template(template, count: count)) }
        }

        /// An iterator over the phrases of the templates and classes as they are now.
        public override func makeAsyncIterator() -> PhraseCountGenerator.Iterator {
            let current = snapshot
            return Iterator(templates: current.templates, templateClasses: current.classes)
        }

        override func isEqual(to other: PhraseCountGenerator) -> Bool {
            guard let other = other as? TemplatePhraseCountGenerator else { return false }
            return self === other || snapshot == other.snapshot
        }

        /// Hashes the templates and classes.
        public override func hash(into hasher: inout Hasher) {
            hasher.combine(snapshot)
        }

        /// Whether two generators have the same templates and classes.
        public static func == (lhs: TemplatePhraseCountGenerator, rhs: TemplatePhraseCountGenerator) -> Bool {
            lhs.isEqual(to: rhs)
        }
    }
}
