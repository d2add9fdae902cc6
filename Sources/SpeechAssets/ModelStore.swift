import Foundation

/// Where models live on this machine, and the one way they get there.
///
/// Models are folders `<home>/models/<id>`; a folder exists there only once every file has been downloaded,
/// checked against the catalog's SHA-256 and renamed into place in one step, so an interrupted install never
/// leaves a model that looks installed. Installs of one model are merged within a process and serialized across
/// processes by a file lock. Apple's framework has no public equivalent; `AssetInventory` is built on this.
public struct ModelStore: Sendable {
    /// The root folder: `models/`, `tmp/`, `downloads/`, `locks/`, reservations and user models live under it.
    public let home: URL
    /// The models this store can install.
    public let catalog: ModelCatalog

    /// The Hugging Face settings of Hub installs (`hf:` ids, Hub sources); nil: the process environment's, read
    /// when an install needs them.
    public var hubEnvironment: HubEnvironment?

    var fileWriting: any FileWriting = PosixFileWriting()
    var pip = PipDownloader()
    var http = HTTPDownloader()
    /// The listing `installFromHub` resolved its revision with, so the install does not ask for it again.
    var hubListing: HubListing?

    /// A store at `home`; nil means `$OPENSPEECH_HOME`, else `$XDG_DATA_HOME/openspeech`,
    /// else `~/.local/share/openspeech`. Its catalog is `ModelCatalog.standard(home:)`.
    public init(home: URL? = nil) {
        let resolved = home ?? Self.defaultHome()
        self.init(home: resolved, catalog: ModelCatalog.standard(home: resolved))
    }

    /// A store at `home` installing from `catalog`.
    public init(home: URL, catalog: ModelCatalog) {
        self.home = home.standardizedFileURL
        self.catalog = catalog
    }

    /// `$OPENSPEECH_HOME`, else `$XDG_DATA_HOME/openspeech`, else `~/.local/share/openspeech`.
    public static func defaultHome() -> URL {
        let environment = ProcessInfo.processInfo.environment
        if let path = environment["OPENSPEECH_HOME"], !path.isEmpty {
            return URL(fileURLWithPath: path, isDirectory: true)
        }
        if let path = environment["XDG_DATA_HOME"], !path.isEmpty {
            return URL(fileURLWithPath: path, isDirectory: true).appendingPathComponent("openspeech", isDirectory: true)
        }
        return FileManager.default.homeDirectoryForCurrentUser
            .appendingPathComponent(".local/share/openspeech", isDirectory: true)
    }

    /// The folder of a complete, verified install of `modelID` (`<home>/models/<id>`), or nil if it is not
    /// installed or its files no longer match the catalog. A Hub reference (`hf:OWNER/NAME[@REVISION]`) stands for
    /// the catalog model installing that repository (see `HubModelLookup.swift`).
    public func installedDirectory(for modelID: String) -> URL? {
        let model = catalog.model(modelID)
        if HuggingFaceReference.isReference(modelID) { return model.flatMap { installedDirectory(for: $0.id) } }
        guard let directory = try? directory(for: modelID),
              let manifest = InstallManifest.read(from: directory), manifest.id == modelID
        else { return nil }
        var expected = model?.files
        if let model, model.files.isEmpty, model.isHubSourced {
            // The files are the repository's, checked when installed: the manifest's, from one of its repositories.
            guard model.accepts(installedFrom: manifest.origin) else { return nil }
            expected = nil
        }
        return manifest.isComplete(in: directory, expected: expected) ? directory : nil
    }

    /// Whether an install of `modelID` is running, in this process or another.
    public func isInstalling(_ modelID: String) async -> Bool {
        let id = installID(for: modelID)
        if await InstallCoordinator.shared.isInstalling(installKey(id)) { return true }
        return (try? lockURL(for: id)).map(FileLock.isHeld) ?? false
    }

    /// The id an install of `modelID` goes under: itself, or for a Hub reference the catalog model installing it,
    /// else the repository's name.
    func installID(for modelID: String) -> String {
        guard HuggingFaceReference.isReference(modelID) else { return modelID }
        return catalog.model(modelID)?.id ?? (try? HuggingFaceReference(parsing: modelID))?.name ?? modelID
    }

    /// Throws `ModelAssetError.invalidCatalog` for an extra catalog (`$OPENSPEECH_CATALOG`, the user models) that
    /// cannot be read: `catalog` skips such a file, so a command that relies on it says so instead.
    public func validateCatalogs() throws {
        for url in ModelCatalog.extraCatalogURLs(home: home) { _ = try ModelCatalog(contentsOf: url) }
    }

    /// The ids of the installed catalog models.
    public var installedModelIDs: [String] {
        catalog.models.map(\.id).filter { installedDirectory(for: $0) != nil }
    }

    /// Installs `modelID` from the first of its catalog sources that works, verifying every file, and returns its
    /// folder. Returns at once if it is installed. `progress` receives bytes written of the model's total size.
    /// Cancelling the task stops the download (an HTTP download resumes on the next install). A catalog entry that
    /// is not valid (see `CatalogValidation.swift`) throws `ModelAssetError.invalidCatalog` before anything is written.
    /// A Hub reference (`hf:OWNER/NAME[@REVISION]`) not installed yet is installed with `installFromHub`.
    @discardableResult
    public func install(_ modelID: String,
                        progress: (@Sendable (_ completedBytes: Int64, _ totalBytes: Int64) -> Void)? = nil) async throws -> URL {
        if HuggingFaceReference.isReference(modelID) {
            let reference = try HuggingFaceReference(parsing: modelID)
            let served = catalog.model(modelID)
            if let served, let directory = installedDirectory(for: served.id) {
                let size = InstallManifest.read(from: directory).map { $0.files.reduce(0) { $0 + $1.size } } ?? served.size
                progress?(size, size)
                return directory
            }
            let model = try await installFromHub(reference, id: served?.id, progress: progress)
            return try directory(for: model.id)
        }
        if let problem = catalog.model(modelID)?.problem() {
            throw ModelAssetError.invalidCatalog(path: "given to this model store", reason: problem)
        }
        if let directory = installedDirectory(for: modelID) {
            if let model = catalog.model(modelID) { progress?(model.size, model.size) }
            return directory
        }
        guard let model = catalog.model(modelID) else {
            throw ModelAssetError.unknownModel(id: modelID, known: catalog.models.map(\.id))
        }
        let store = self
        return try await InstallCoordinator.shared.install(installKey(modelID), progress: progress) { report in
            try await store.performInstall(model, report: report)
        }
    }

    /// Removes an installed model. Returns false if it was not installed. Waits for an install in progress.
    @discardableResult
    public func remove(_ modelID: String) async throws -> Bool {
        guard Self.isValidID(modelID) else { return false }
        let lock = try await FileLock.acquire(try lockURL(for: modelID))
        defer { withExtendedLifetime(lock) {} }
        let directory = try directory(for: modelID)
        guard FileManager.default.fileExists(atPath: directory.path) else { return false }
        // Rename first so a half-deleted folder is never seen under models/.
        let trash = try stagingFolder(for: modelID, .removed)
        try FileManager.default.createDirectory(at: stagingRoot, withIntermediateDirectories: true)
        try FileManager.default.moveItem(at: directory, to: trash)
        try? FileManager.default.removeItem(at: trash)
        return true
    }

    func installKey(_ modelID: String) -> String { home.path + "\u{0}" + modelID }
}
