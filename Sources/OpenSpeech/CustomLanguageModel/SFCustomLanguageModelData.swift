import Foundation
import Synchronization

/// Training data for a custom language model, as Apple's `SFCustomLanguageModelData`: phrases with counts,
/// phrases from templates, and custom terms with pronunciations, for one locale. Build it with `insert` calls or
/// a builder closure, `export(to:)` it to a file, then `SFSpeechLanguageModel.prepareCustomLanguageModel` turns
/// the file into the language model and vocabulary a recognition request or `DictationTranscriber` uses.
///
/// Differs from Apple's: Whisper models are not retrained. The prepared model is the distinct phrases with their
/// counts and the terms; recognition gives the terms, then the most frequent phrases, to the model as contextual
/// strings, which makes it likelier to hear and spell them as written. Pronunciations are kept but unused.
/// `Codable` encodes the phrase counts, the terms and the `TemplatePhraseCountGenerator`s; generators of other
/// `PhraseCountGenerator` subclasses are expanded by `export(to:)` but not encoded.
public final class SFCustomLanguageModelData: Codable, Hashable, Sendable {
    /// The language of the data.
    public let locale: Locale
    /// The data's identifier (often the app's bundle identifier).
    public let identifier: String
    /// The data's version.
    public let version: String

    /// A source of phrase counts, in insertion order.
    enum Entry: Sendable {
        case phraseCount(PhraseCount)
        case generator(PhraseCountGenerator)
    }

    struct Contents: Sendable {
        var entries: [Entry] = []
        var terms: [CustomPronunciation] = []
    }

    let contents = Mutex(Contents())

    /// Empty data for `locale`.
    public init(locale: Locale, identifier: String, version: String) {
        self.locale = locale
        self.identifier = identifier
        self.version = version
    }

    /// Data for `locale` holding what `builder` lists (phrase counts, phrases from templates, custom
    /// pronunciations; `if`, `switch` and `for` work inside it).
    public convenience init(locale: Locale, identifier: String, version: String,
                            @DataInsertableBuilder builder: () -> any DataInsertable) {
        self.init(locale: locale, identifier: identifier, version: version)
        builder().insert(data: self)
    }

    /// Adds a phrase and its count.
    public func insert(phraseCount: PhraseCount) {
        contents.withLock { $0.entries.append(.phraseCount(phraseCount)) }
    }

    /// Adds a generator of phrase counts; `export(to:)` runs it to the end.
    public func insert(phraseCountGenerator: PhraseCountGenerator) {
        contents.withLock { $0.entries.append(.generator(phraseCountGenerator)) }
    }

    /// Adds a term to the vocabulary. Ours gives its grapheme to recognition as a contextual string; its
    /// pronunciations are stored, unused.
    public func insert(term: CustomPronunciation) {
        contents.withLock { $0.terms.append(term) }
    }

    // MARK: Codable

    private enum CodingKeys: String, CodingKey {
        case locale, identifier, version, phraseCounts, templateGenerators, terms
    }

    /// Decodes training data as `encode(to:)` writes it; missing phrase count, generator and term lists are empty.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        locale = Locale(identifier: try container.decode(String.self, forKey: .locale))
        identifier = try container.decode(String.self, forKey: .identifier)
        version = try container.decode(String.self, forKey: .version)
        let phraseCounts = try container.decodeIfPresent([PhraseCount].self, forKey: .phraseCounts) ?? []
        let generators = try container.decodeIfPresent([TemplatePhraseCountGenerator].self, forKey: .templateGenerators) ?? []
        let terms = try container.decodeIfPresent([CustomPronunciation].self, forKey: .terms) ?? []
        contents.withLock {
            $0.entries = phraseCounts.map(Entry.phraseCount) + generators.map(Entry.generator)
            $0.terms = terms
        }
    }

    /// Encodes the locale, identifier, version, phrase counts, template generators and terms.
    /// Generators other than `TemplatePhraseCountGenerator` are not written.
    public func encode(to encoder: any Encoder) throws {
        let (entries, terms) = contents.withLock { ($0.entries, $0.terms) }
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(locale.identifier, forKey: .locale)
        try container.encode(identifier, forKey: .identifier)
        try container.encode(version, forKey: .version)
        try container.encode(entries.compactMap { if case .phraseCount(let p) = $0 { p } else { nil } }, forKey: .phraseCounts)
        try container.encode(entries.compactMap { if case .generator(let g) = $0 { g as? TemplatePhraseCountGenerator } else { nil } },
                             forKey: .templateGenerators)
        try container.encode(terms, forKey: .terms)
    }

    // MARK: Hashable

    /// The phrase counts and generators, and the terms, in order.
    private var snapshot: (phraseCounts: [PhraseCount], generators: [PhraseCountGenerator], terms: [CustomPronunciation]) {
        contents.withLock { contents in
            (contents.entries.compactMap { if case .phraseCount(let p) = $0 { p } else { nil } },
             contents.entries.compactMap { if case .generator(let g) = $0 { g } else { nil } },
             contents.terms)
        }
    }

    /// Whether two data objects have the same locale, identifier, version, phrase counts, generators and terms.
    public static func == (lhs: SFCustomLanguageModelData, rhs: SFCustomLanguageModelData) -> Bool {
        if lhs === rhs { return true }
        guard lhs.locale.identifier == rhs.locale.identifier, lhs.identifier == rhs.identifier,
              lhs.version == rhs.version else { return false }
        let (left, right) = (lhs.snapshot, rhs.snapshot)
        return left.phraseCounts == right.phraseCounts && left.generators == right.generators && left.terms == right.terms
    }

    /// Hashes the locale, identifier, version, phrase counts and terms.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(locale.identifier)
        hasher.combine(identifier)
        hasher.combine(version)
        let current = snapshot
        hasher.combine(current.phraseCounts)
        hasher.combine(current.terms)
    }
}
