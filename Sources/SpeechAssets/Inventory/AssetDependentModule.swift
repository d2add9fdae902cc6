import Foundation

/// What an analysis module needs installed: the part of Apple's `SpeechModule` that `AssetInventory` reads.
///
/// Apple's `AssetInventory` takes `[any SpeechModule]`; the public `SpeechModule` protocol refines this one, so
/// the same calls compile. A module names the locales it transcribes (their default models are installed and the
/// locales reserved) and, optionally, explicit catalog models (`silero-vad` for the detector, or a model chosen
/// in place of the locale's default).
public protocol AssetDependentModule: Sendable {
    /// Locales whose models the module needs; `assetInstallationRequest(supporting:)` reserves them.
    var assetLocales: [Locale] { get }
    /// Catalog model ids the module needs. When not empty, they replace the locales' default models.
    var assetModelIDs: [String] { get }
    /// What the module asks of its locales' models beyond the language (an initial prompt, alternatives): their
    /// default is then one that serves it (`LocaleModelResolver.model(for:serving:)`).
    var assetNeeds: CatalogModel.Capabilities { get }
}

extension AssetDependentModule {
    public var assetLocales: [Locale] { [] }
    public var assetModelIDs: [String] { [] }
    public var assetNeeds: CatalogModel.Capabilities { [] }
}
