import Foundation

/// Every path the store writes, built from a checked model id and file names and refused unless it lies under the
/// home. The catalog is checked when read; these checks are the second line, so a bug there still writes nothing
/// outside the home. The test is on the path's components, not on links: a home whose `models/` is a link to
/// another disk keeps working.
extension ModelStore {
    var modelsDirectory: URL { home.appendingPathComponent("models", isDirectory: true) }
    var stagingRoot: URL { home.appendingPathComponent("tmp", isDirectory: true) }
    var downloadsRoot: URL { home.appendingPathComponent("downloads", isDirectory: true) }
    var locksDirectory: URL { home.appendingPathComponent("locks", isDirectory: true) }

    /// `<home>/models/<id>`.
    func directory(for modelID: String) throws -> URL {
        try pathUnderHome(modelID, in: modelsDirectory, modelID: modelID)
    }

    /// `<home>/locks/<id>.lock`.
    func lockURL(for modelID: String) throws -> URL {
        try pathUnderHome("\(modelID).lock", in: locksDirectory, modelID: modelID)
    }

    /// `<home>/downloads/<id>`: partial downloads of the model's files, kept across interrupted installs.
    func downloadsFolder(for modelID: String) throws -> URL {
        try pathUnderHome(modelID, in: downloadsRoot, modelID: modelID)
    }

    /// A new folder `<home>/tmp/<id>.<purpose>-<UUID>` (a staged install, a folder being replaced or removed).
    func stagingFolder(for modelID: String, _ purpose: StagingPurpose) throws -> URL {
        try pathUnderHome("\(modelID).\(purpose.rawValue)-\(UUID().uuidString)", in: stagingRoot, modelID: modelID)
    }

    /// Whether `name`, an entry of `<home>/tmp`, is a folder `stagingFolder(for: modelID, _)` made.
    func isStagingFolder(_ name: String, of modelID: String) -> Bool {
        StagingPurpose.allCases.contains { purpose in
            let prefix = "\(modelID).\(purpose.rawValue)-"
            return name.hasPrefix(prefix) && UUID(uuidString: String(name.dropFirst(prefix.count))) != nil
        }
    }

    /// `folder/<name><suffix>` for a plain name (a model file, a folder named for the model; `suffix`: `.partial`
    /// for a download in progress) in one of the home's folders. Throws `ModelAssetError.outsideHome` otherwise.
    func pathUnderHome(_ name: String, suffix: String = "", in folder: URL, modelID: String) throws -> URL {
        let url = folder.appendingPathComponent(name + suffix)
        guard Self.isValidID(modelID), CatalogModel.File.isValidName(name), !suffix.contains("/"), isInsideHome(url) else {
            throw ModelAssetError.outsideHome(path: url.path, home: home.path)
        }
        return url
    }

    /// Whether `url`'s path is the home's path followed by one or more plain components (no `.`, `..`, NUL).
    func isInsideHome(_ url: URL) -> Bool {
        let path = url.path
        guard !path.contains("\0") else { return false }
        let parts = path.split(separator: "/")
        let homeParts = home.path.split(separator: "/")
        return parts.count > homeParts.count && parts.starts(with: homeParts)
            && !parts.dropFirst(homeParts.count).contains { $0 == "." || $0 == ".." }
    }
}

/// Why a folder under `<home>/tmp` exists; part of its name.
enum StagingPurpose: String, CaseIterable {
    case staging, replaced, removed
}
