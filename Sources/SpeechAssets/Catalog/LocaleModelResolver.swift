import Foundation

/// Maps locales to catalog models: which locales the catalog supports, which model transcribes a locale, and the
/// supported locale closest to one a user asks for. The transcribers call this; `AssetInventory` is built on it.
///
/// A locale's language picks the model; its region only matters for matching (Whisper has no regional variants).
/// Among the speech models that speak the language and serve what the request needs (`CatalogModel.serves`), built-in
/// ones first (those a Python package provides before those only the Hugging Face Hub serves: a default installs
/// without the Hub), the one dedicated to the fewest languages wins, then the smallest. English therefore defaults to
/// `moonshine-base-en`, and to `whisper-tiny.en` for a request with an initial prompt or alternatives (which
/// Moonshine does not take); other languages to the smallest multilingual model (`whisper-base`).
public struct LocaleModelResolver: Sendable {
    public let catalog: ModelCatalog

    public init(catalog: ModelCatalog) {
        self.catalog = catalog
    }

    /// The default model for transcribing `locale` in a request that needs `needs`, or nil if no catalog model that
    /// serves them speaks its language.
    public func model(for locale: Locale, serving needs: CatalogModel.Capabilities = []) -> CatalogModel? {
        guard let language = Self.whisperLanguage(of: locale) else { return nil }
        return catalog.models
            .filter { $0.serves(needs) && $0.languages.contains(language) }
            .min { (rank($0), $0.languages.count, $0.size, $0.id) < (rank($1), $1.languages.count, $1.size, $1.id) }
    }

    /// Built-in models first: a model a user adds never silently replaces a locale's default; nor does a built-in
    /// model only the Hub serves (gigabytes over the network) replace one the Python index serves.
    private func rank(_ model: CatalogModel) -> Int {
        ModelCatalog.builtIn.model(model.id) == nil ? 2 : model.isHubSourced ? 1 : 0
    }

    /// The id of `model(for:serving:)`.
    public func modelID(for locale: Locale, serving needs: CatalogModel.Capabilities = []) -> String? {
        model(for: locale, serving: needs)?.id
    }

    /// Every locale some catalog speech model transcribes: each language alone and in each region the system
    /// knows for it (`en`, `en-US`, `en-GB`...), so comparing `identifier(.bcp47)` with a regional locale works.
    public var supportedLocales: [Locale] { Self.locales(forLanguages: transcriptionLanguages(of: catalog.models)) }

    /// The locales of the given installed model ids.
    public func locales(ofModels ids: [String]) -> [Locale] {
        Self.locales(forLanguages: transcriptionLanguages(of: catalog.models.filter { ids.contains($0.id) }))
    }

    /// A supported locale equivalent to `locale`: the same one if supported, else the same language in another
    /// region — preferring `preferred` locales (installed or reserved ones), then the language's most likely
    /// region, then the language alone. Nil if no model speaks the language.
    public func supportedLocale(equivalentTo locale: Locale, preferring preferred: [Locale] = []) -> Locale? {
        guard let language = Self.whisperLanguage(of: locale), model(for: locale) != nil else { return nil }
        let supported = supportedLocales
        let wanted = Self.key(locale)
        if let exact = supported.first(where: { Self.key($0) == wanted }) { return exact }
        let sameLanguage = supported.filter { Self.whisperLanguage(of: $0) == language }
        for candidate in preferred {
            if let match = sameLanguage.first(where: { Self.key($0) == Self.key(candidate) }) { return match }
        }
        let likely = Locale.Language(identifier: locale.language.languageCode?.identifier ?? language)
        if let region = likely.maximalIdentifier.split(separator: "-").last.map(String.init),
           let match = sameLanguage.first(where: { Self.key($0).split(separator: "-").dropFirst() == [Substring(region.lowercased())] }) {
            return match
        }
        return sameLanguage.first { $0.region == nil } ?? sameLanguage.first
    }

    private func transcriptionLanguages(of models: [CatalogModel]) -> Set<String> {
        Set(models.filter(\.isTranscriptionModel).flatMap(\.languages))
    }

    // MARK: Language codes

    /// Whisper's codes that differ from the system's (ISO 639-1) ones.
    private static let systemCodes: [String: [String]] = ["jw": ["jv"], "no": ["no", "nb"], "he": ["he", "iw"]]

    /// The Whisper language code of a locale, or nil if it names no language.
    public static func whisperLanguage(of locale: Locale) -> String? {
        guard let code = locale.language.languageCode?.identifier.lowercased() ?? languagePart(locale.identifier)
        else { return nil }
        for (whisper, system) in systemCodes where system.contains(code) { return whisper }
        return code
    }

    private static func languagePart(_ identifier: String) -> String? {
        identifier.split(whereSeparator: { $0 == "-" || $0 == "_" }).first.map { $0.lowercased() }
    }

    /// Matching key: the BCP-47 identifier, case-folded.
    static func key(_ locale: Locale) -> String { locale.identifier(.bcp47).lowercased() }

    private static func locales(forLanguages languages: Set<String>) -> [Locale] {
        var codes: Set<String> = []
        for language in languages { codes.formUnion(systemCodes[language] ?? [language]) }
        var identifiers = Set(codes)
        for identifier in Locale.availableIdentifiers {
            guard let code = languagePart(identifier), codes.contains(code) else { continue }
            // Keep language, language_Region and language_Script_Region; skip variants and keywords. A script's
            // region is also listed alone (zh_Hans_CN as zh_CN too: the identifier apps use, and Apple lists).
            let parts = identifier.split(separator: "_")
            guard parts.count <= 3, !identifier.contains("@") else { continue }
            identifiers.insert(identifier)
            if parts.count == 3, parts[1].count == 4 { identifiers.insert("\(parts[0])_\(parts[2])") }
        }
        var seen = Set<String>()
        return identifiers.sorted().map { Locale(identifier: $0) }.filter { seen.insert(key($0)).inserted }
    }
}
