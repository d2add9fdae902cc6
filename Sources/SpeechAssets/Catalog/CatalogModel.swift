import Foundation

/// One model of the catalog: what it is, the files that make it up (each pinned by SHA-256) and where to get them.
public struct CatalogModel: Sendable, Hashable, Codable, Identifiable {
    /// A file of the installed model directory.
    public struct File: Sendable, Hashable, Codable {
        /// The file name inside `<home>/models/<id>/`.
        public var name: String
        /// Size in bytes.
        public var size: Int64
        /// Lowercase hexadecimal SHA-256 of the whole file.
        public var sha256: String

        public init(name: String, size: Int64, sha256: String) {
            self.name = name
            self.size = size
            self.sha256 = sha256.lowercased()
        }
    }

    /// The catalog identifier, also the folder name under `<home>/models/`.
    public var id: String
    /// `whisper` for speech-to-text models (CTranslate2 Whisper directories), `silero-vad` for the voice detector.
    public var family: String
    /// Language codes the model transcribes, as Whisper names them (`en`, `fr`, `haw`...); empty for non-speech models.
    public var languages: [String]
    public var license: String?
    public var description: String?
    /// The files, each pinned by SHA-256; empty for an entry whose every source is the Hugging Face Hub, whose
    /// files are then the repository's, checked against the Hub's hashes.
    public var files: [File]
    /// The download's size in bytes when `files` is empty (the repository's files are known at install time only):
    /// an estimate, for `size`.
    public var approximateSize: Int64?
    /// Where the files come from, tried in order until one succeeds.
    public var sources: [ModelSource]
    /// The speech model's accuracy class, 1 the most accurate: each class transcribes better than the next by the
    /// published word error rates (the README's model table gives the order and its sources); nil when the catalog
    /// does not know it (a model a user adds), which ranks after every class. Among the installed models that speak a
    /// language, file transcription runs the most accurate (`LanguageModelChoice`).
    public var accuracyClass: Int?

    public init(id: String, family: String, languages: [String], license: String? = nil, description: String? = nil,
                files: [File], approximateSize: Int64? = nil, sources: [ModelSource], accuracyClass: Int? = nil) {
        self.id = id
        self.family = family
        self.languages = languages
        self.license = license
        self.description = description
        self.files = files
        self.approximateSize = approximateSize
        self.sources = sources
        self.accuracyClass = accuracyClass
    }

    /// Total size of the installed model in bytes (`approximateSize` for an entry that lists no files).
    public var size: Int64 { files.isEmpty ? approximateSize ?? 0 : files.reduce(0) { $0 + $1.size } }

    /// Whether `size` is an estimate: the entry leaves its files to its Hub repository.
    public var isSizeApproximate: Bool { files.isEmpty }

    /// The families of speech-to-text models: the engine's `SpeechModelFamily` runs each (the others, such as
    /// `silero-vad`, serve a transcription).
    public static let transcriptionFamilies: Set<String> = ["whisper", "moonshine"]

    /// Whether this is a speech-to-text model.
    public var isTranscriptionModel: Bool { Self.transcriptionFamilies.contains(family) }

    /// What a request may ask of a speech model beyond its language: only a model that serves all of it runs unnamed
    /// for that request (`LocaleModelResolver.model(for:serving:)`).
    public struct Capabilities: OptionSet, Sendable, Hashable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// Text as if heard before the audio: an initial prompt (the decoder's first prompt). Contextual strings and
        /// a custom language model's phrases need nothing: every family favours them (contextual biasing).
        public static let prompt = Capabilities(rawValue: 1)
        /// Other hypotheses beside the best, as alternatives.
        public static let alternatives = Capabilities(rawValue: 2)
        /// Everything a request may ask.
        public static let all: Capabilities = [.prompt, .alternatives]
    }

    /// What this model serves: Whisper's take a prompt and give a beam's alternatives; Moonshine's do neither (its
    /// decoder starts from the audio alone, greedily; it favours contextual strings as Whisper's do).
    public var capabilities: Capabilities { family == "whisper" ? .all : [] }

    /// Whether this is a speech-to-text model that serves everything in `needs`.
    public func serves(_ needs: Capabilities) -> Bool { isTranscriptionModel && capabilities.isSuperset(of: needs) }
}
