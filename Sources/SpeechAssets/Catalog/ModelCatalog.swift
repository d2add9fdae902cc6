import Foundation

/// The models OpenSpeech knows: the catalog shipped with the package, plus a catalog file named by
/// `$OPENSPEECH_CATALOG` and the user models registered under the store's home (`openspeech models add`).
/// A later entry with the same id replaces an earlier one.
public struct ModelCatalog: Sendable, Hashable, Codable {
    public var models: [CatalogModel]

    public init(models: [CatalogModel]) {
        self.models = models
    }

    /// Reads a catalog file (`{"models": [...]}`) and checks every entry (see `CatalogValidation.swift`): one
    /// invalid entry rejects the whole file with `ModelAssetError.invalidCatalog` saying which model and why.
    public init(contentsOf url: URL) throws {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw ModelAssetError.invalidCatalog(path: url.path, reason: "it cannot be read")
        }
        do {
            self = try JSONDecoder().decode(ModelCatalog.self, from: data)
        } catch {
            throw ModelAssetError.invalidCatalog(path: url.path, reason: "\(error)")
        }
        if let problem = problem() { throw ModelAssetError.invalidCatalog(path: url.path, reason: problem) }
    }

    /// The catalog shipped with the package.
    public static let builtIn: ModelCatalog = {
        guard let url = Bundle.module.url(forResource: "catalog", withExtension: "json"),
              let catalog = try? ModelCatalog(contentsOf: url)
        else { return ModelCatalog(models: []) }
        return catalog
    }()

    /// The built-in catalog, then `$OPENSPEECH_CATALOG` if set, then the user catalog under `home`.
    /// An unreadable extra catalog is skipped here; `ModelStore.validateCatalogs()` reports it.
    public static func standard(home: URL) -> ModelCatalog {
        var result = builtIn
        for url in extraCatalogURLs(home: home) {
            if let extra = try? ModelCatalog(contentsOf: url) { result.merge(extra) }
        }
        return result
    }

    static func extraCatalogURLs(home: URL) -> [URL] {
        var urls: [URL] = []
        if let path = ProcessInfo.processInfo.environment["OPENSPEECH_CATALOG"], !path.isEmpty {
            urls.append(URL(fileURLWithPath: path))
        }
        let user = userCatalogURL(home: home)
        if FileManager.default.fileExists(atPath: user.path) { urls.append(user) }
        return urls
    }

    /// Where `openspeech models add` records user models.
    static func userCatalogURL(home: URL) -> URL { home.appendingPathComponent("user-models.json") }

    /// Adds or replaces models by id.
    public mutating func merge(_ other: ModelCatalog) {
        for model in other.models {
            if let index = models.firstIndex(where: { $0.id == model.id }) {
                models[index] = model
            } else {
                models.append(model)
            }
        }
    }

    /// The model with id `id`; for a Hub reference (`hf:OWNER/NAME[@REVISION]`), the entry installing that
    /// repository, if one does (such as a model installed with `ModelStore.installFromHub`).
    public func model(_ id: String) -> CatalogModel? {
        if let model = models.first(where: { $0.id == id }) { return model }
        guard HuggingFaceReference.isReference(id), let reference = try? HuggingFaceReference(parsing: id) else { return nil }
        return model(serving: reference)
    }
}
