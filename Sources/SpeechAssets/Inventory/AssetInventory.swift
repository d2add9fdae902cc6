import Foundation

/// Manages the models that modules need, as Apple's `AssetInventory` does: status, installation requests and
/// locale reservations.
///
/// Models live in the store at `ModelStore.defaultHome()` (`$OPENSPEECH_HOME`...). Differences from Apple's:
/// reservations are persisted under that home and shared by every process using it; the maximum number of
/// reserved locales is `$OPENSPEECH_MAX_RESERVED_LOCALES` (default 5); releasing a locale never deletes a model
/// (`openspeech models remove` does).
public enum AssetInventory {
    /// Where a module's assets stand. Ordered: `unsupported < supported < downloading < installed`.
    public enum Status: Int, Sendable, Comparable, CustomStringConvertible, CaseIterable {
        /// No model supports the module's locale.
        case unsupported
        /// A model supports it but is not installed.
        case supported
        /// The model is being downloaded, in this process or another.
        case downloading
        /// The model is installed.
        case installed

        public static func < (lhs: Status, rhs: Status) -> Bool { lhs.rawValue < rhs.rawValue }

        public var description: String {
            switch self {
            case .unsupported: "unsupported"
            case .supported: "supported"
            case .downloading: "downloading"
            case .installed: "installed"
            }
        }
    }

    /// Tests and tools scope the static API to another store with `AssetInventory.$current.withValue(...)`.
    @TaskLocal static var current: AssetLibrary?

    static var library: AssetLibrary { current ?? AssetLibrary() }

    /// The most locales that can be reserved at once.
    public static var maximumReservedLocales: Int { library.maximumReservedLocales }

    /// The reserved locales.
    public static var reservedLocales: [Locale] {
        get async { library.reservedLocales }
    }

    /// Reserves `locale`; true if newly reserved, false if it already was. Throws `SFSpeechError` with
    /// `tooManyAssetLocalesAllocated` past the maximum, `cannotAllocateUnsupportedLocale` for an unsupported locale.
    @discardableResult
    public static func reserve(locale: Locale) async throws -> Bool {
        try library.reserve(locale: locale)
    }

    /// Releases a reserved locale; true if it was reserved.
    @discardableResult
    public static func release(reservedLocale locale: Locale) async -> Bool {
        library.release(reservedLocale: locale)
    }

    /// The lowest status among the modules' assets.
    public static func status(forModules modules: [any AssetDependentModule]) async -> Status {
        await library.status(forModules: modules)
    }

    /// A request installing the modules' missing assets, or nil if they are installed. Reserves their locales.
    public static func assetInstallationRequest(supporting modules: [any AssetDependentModule]) async throws -> AssetInstallationRequest? {
        try library.assetInstallationRequest(supporting: modules)
    }

    // MARK: Early names (betas of Apple's API), kept so code written against them compiles.

    /// Early name of `reservedLocales`.
    public static var allocatedLocales: [Locale] {
        get async { await reservedLocales }
    }

    /// Early name of `maximumReservedLocales`.
    public static var maximumAllocatedLocales: Int { maximumReservedLocales }

    /// Early name of `reserve(locale:)`.
    @discardableResult
    public static func allocate(locale: Locale) async throws -> Bool { try await reserve(locale: locale) }

    /// Early name of `release(reservedLocale:)`.
    @discardableResult
    public static func deallocate(locale: Locale) async -> Bool { await release(reservedLocale: locale) }
}
