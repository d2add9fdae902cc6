import Foundation

/// `AssetInventory`'s semantics over one `ModelStore`. `AssetInventory` uses the store at the default home;
/// tools and tests may use another.
public struct AssetLibrary: Sendable {
    public let store: ModelStore
    /// How many locales may be reserved at once.
    public let maximumReservedLocales: Int
    public var resolver: LocaleModelResolver { LocaleModelResolver(catalog: store.catalog) }
    var reservations: LocaleReservations { LocaleReservations(home: store.home) }

    /// The default maximum: `$OPENSPEECH_MAX_RESERVED_LOCALES`, else 5.
    public static var defaultMaximumReservedLocales: Int {
        ProcessInfo.processInfo.environment["OPENSPEECH_MAX_RESERVED_LOCALES"].flatMap(Int.init).map { max(1, $0) } ?? 5
    }

    public init(store: ModelStore = ModelStore(), maximumReservedLocales: Int = AssetLibrary.defaultMaximumReservedLocales) {
        self.store = store
        self.maximumReservedLocales = maximumReservedLocales
    }

    // MARK: Locales

    /// Locales some catalog speech model transcribes.
    public var supportedLocales: [Locale] { resolver.supportedLocales }

    /// Locales an installed speech model transcribes.
    public var installedLocales: [Locale] { resolver.locales(ofModels: store.installedModelIDs) }

    /// The supported locale equivalent to `locale` (exact, else the same language elsewhere, preferring reserved
    /// then installed locales), or nil.
    public func supportedLocale(equivalentTo locale: Locale) -> Locale? {
        let installedLanguages = Set(installedLocales.compactMap { LocaleModelResolver.whisperLanguage(of: $0) })
        let preferred = reservedLocales + installedLocales.filter {
            installedLanguages.contains(LocaleModelResolver.whisperLanguage(of: $0) ?? "") && $0.region != nil
        }
        return resolver.supportedLocale(equivalentTo: locale, preferring: preferred)
    }

    // MARK: Reservations

    public var reservedLocales: [Locale] { reservations.read().map { Locale(identifier: $0) } }

    /// Reserves `locale`: true if newly reserved, false if it already was. Throws
    /// `cannotAllocateUnsupportedLocale` for a locale no model speaks and `tooManyAssetLocalesAllocated` past the
    /// maximum.
    @discardableResult
    public func reserve(locale: Locale) throws -> Bool {
        guard resolver.model(for: locale) != nil else {
            throw SFSpeechError(.cannotAllocateUnsupportedLocale,
                "No installable model supports the locale \(locale.identifier(.bcp47)); choose one of SpeechTranscriber.supportedLocales (`openspeech models list`).")
        }
        let key = LocaleModelResolver.key(locale)
        let maximum = maximumReservedLocales
        return try reservations.update { locales in
            if locales.contains(where: { $0.lowercased() == key }) { return false }
            guard locales.count < maximum else {
                throw SFSpeechError(.tooManyAssetLocalesAllocated,
                    "Already \(locales.count) locales reserved (\(locales.joined(separator: ", "))), the maximum; release one with AssetInventory.release(reservedLocale:) (`openspeech models release LOCALE`) first.")
            }
            locales.append(locale.identifier(.bcp47))
            return true
        }
    }

    /// Releases `locale`: true if it was reserved. Its models stay installed.
    @discardableResult
    public func release(reservedLocale locale: Locale) -> Bool {
        let key = LocaleModelResolver.key(locale)
        return (try? reservations.update { locales in
            let count = locales.count
            locales.removeAll { $0.lowercased() == key }
            return locales.count != count
        }) ?? false
    }

    // MARK: Modules

    /// The catalog models `module` needs, or nil if one of its locales or models is not in the catalog. A Hub
    /// reference (`hf:OWNER/NAME[@REVISION]`) counts as known: installing it fetches it from the Hub.
    public func requiredModelIDs(for module: any AssetDependentModule) -> [String]? {
        if !module.assetModelIDs.isEmpty {
            let known = module.assetModelIDs.allSatisfy {
                store.catalog.model($0) != nil || (try? HuggingFaceReference(parsing: $0)) != nil
            }
            return known ? module.assetModelIDs : nil
        }
        var ids: [String] = []
        for locale in module.assetLocales {
            guard let id = resolver.modelID(for: locale, serving: module.assetNeeds) else { return nil }
            if !ids.contains(id) { ids.append(id) }
        }
        return ids
    }

    /// The lowest status among the modules (`unsupported < supported < downloading < installed`).
    public func status(forModules modules: [any AssetDependentModule]) async -> AssetInventory.Status {
        var lowest = AssetInventory.Status.installed
        for module in modules {
            guard let ids = requiredModelIDs(for: module) else { return .unsupported }
            for id in ids where store.installedDirectory(for: id) == nil {
                lowest = min(lowest, await store.isInstalling(id) ? .downloading : .supported)
            }
        }
        return lowest
    }

    /// Reserves the modules' locales and returns a request installing their missing models, or nil if all are
    /// installed.
    public func assetInstallationRequest(supporting modules: [any AssetDependentModule]) throws -> AssetInstallationRequest? {
        var missing: [String] = []
        for module in modules {
            guard let ids = requiredModelIDs(for: module) else {
                let names = module.assetLocales.map { $0.identifier(.bcp47) } + module.assetModelIDs
                throw SFSpeechError(.cannotAllocateUnsupportedLocale,
                    "No installable model supports \(names.joined(separator: ", ")); choose a supported locale (`openspeech models list`).")
            }
            for id in ids where store.installedDirectory(for: id) == nil && !missing.contains(id) { missing.append(id) }
        }
        for locale in modules.flatMap(\.assetLocales) { try reserve(locale: locale) }
        guard !missing.isEmpty else { return nil }
        return AssetInstallationRequest(store: store, modelIDs: missing)
    }
}
