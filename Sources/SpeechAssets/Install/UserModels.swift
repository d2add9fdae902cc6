import Foundation

/// Registering any CTranslate2 Whisper model directory as a user model (`openspeech models add DIR`).
extension ModelStore {
    /// Checks `directory` is a CTranslate2 Whisper model, installs a verified copy under `models/<id>`, and only then
    /// records it in the home's user catalog (`user-models.json`) with every file's size and SHA-256: a failed add
    /// records nothing and leaves nothing under `models/`. Links in the folder are followed, so a Hugging Face cache
    /// snapshot (`models--ORG--NAME/snapshots/REV`, whose files are links into `blobs/`) adds as it is; anything but a
    /// regular file (a FIFO, a device, a folder, a dangling link) is refused, naming it, before it is opened.
    /// `id` defaults to the folder's name (a snapshot's: NAME); `languages` default to the model's own
    /// (`WhisperModelLanguages`: English for an English-only decoder, else the languages of its language tokens).
    /// Returns the new catalog entry.
    @discardableResult
    public func addUserModel(from directory: URL, id: String? = nil, languages: [String]? = nil) async throws -> CatalogModel {
        let fileManager = FileManager.default
        let path = directory.standardizedFileURL.path
        var isDirectory: ObjCBool = false
        guard fileManager.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ModelAssetError.invalidModelDirectory(path: path, reason: "no such folder")
        }
        let names: [String]
        do {
            names = try fileManager.contentsOfDirectory(atPath: path).filter { !$0.hasPrefix(".") }.sorted()
        } catch {
            throw ModelAssetError.invalidModelDirectory(path: path, reason: "its files cannot be listed (\(error.localizedDescription))")
        }
        for required in ["model.bin", "config.json"] where !names.contains(required) {
            throw ModelAssetError.invalidModelDirectory(path: path, reason: "\(required) is missing")
        }
        guard names.contains(where: { $0.hasPrefix("vocabulary.") || $0 == "tokenizer.json" }) else {
            throw ModelAssetError.invalidModelDirectory(path: path, reason: "neither vocabulary.* nor tokenizer.json is present")
        }
        let modelID = id ?? Self.defaultUserModelID(directory)
        guard Self.isValidID(modelID) else {
            throw ModelAssetError.invalidModelDirectory(
                path: path, reason: "'\(modelID)' is not a usable model id (letters, digits, '.', '-', '_'); pass one with --id")
        }
        // The size and hash of the bytes actually read, through links; nothing but a regular file is opened.
        var files: [CatalogModel.File] = []
        for name in names {
            guard CatalogModel.File.isValidName(name) else {
                throw ModelAssetError.invalidModelDirectory(path: path, reason: CatalogModel.File.nameRule(name))
            }
            let digest = try FileDigest(of: directory.appendingPathComponent(name))
            files.append(.init(name: name, size: digest.size, sha256: digest.sha256))
        }
        guard let config = try? RegularFile.contents(of: directory.appendingPathComponent("config.json")),
              (try? JSONSerialization.jsonObject(with: config)) is [String: Any] else {
            throw ModelAssetError.invalidModelDirectory(path: path, reason: "config.json is not a JSON object")
        }
        let model = CatalogModel(
            id: modelID, family: "whisper", languages: try languages ?? WhisperModelLanguages.languages(in: directory),
            description: "User model added from \(path)", files: files, sources: [.directory(path: path)])
        if let problem = model.problem() { throw ModelAssetError.invalidModelDirectory(path: path, reason: problem) }

        // A damaged user catalog is reported before any work, not overwritten.
        let userCatalog = ModelCatalog.userCatalogURL(home: home)
        _ = try Self.readUserCatalog(userCatalog)

        // Install from a store that knows the new model in memory only; record it once its files are in place.
        var merged = catalog
        merged.merge(ModelCatalog(models: [model]))
        var store = ModelStore(home: home, catalog: merged)
        store.fileWriting = fileWriting
        try await store.install(modelID)
        do {
            try recordUserModel(model)
        } catch {
            // Unrecorded, the copy would be an install no catalog lists.
            _ = try? await store.remove(modelID)
            throw error
        }
        return model
    }

    /// Adds or replaces `model` in the home's user catalog (`user-models.json`), under a lock: other processes may
    /// add models too.
    func recordUserModel(_ model: CatalogModel) throws {
        let userCatalog = ModelCatalog.userCatalogURL(home: home)
        try FileLock.withLock(locksDirectory.appendingPathComponent("user-models.lock")) {
            var recorded = try Self.readUserCatalog(userCatalog)
            recorded.merge(ModelCatalog(models: [model]))
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            do {
                try encoder.encode(recorded).write(to: userCatalog, options: .atomic)
            } catch {
                throw ModelAssetError.fileSystem(path: userCatalog.path, reason: error.localizedDescription)
            }
        }
    }

    /// The user catalog at `url`, empty when there is none yet; throws `ModelAssetError.invalidCatalog` if damaged.
    static func readUserCatalog(_ url: URL) throws -> ModelCatalog {
        guard FileManager.default.fileExists(atPath: url.path) else { return ModelCatalog(models: []) }
        return try ModelCatalog(contentsOf: url)
    }

    /// The folder's name, or NAME for a Hugging Face cache snapshot `models--ORG--NAME/snapshots/REV`.
    static func defaultUserModelID(_ directory: URL) -> String {
        let folder = directory.standardizedFileURL
        let snapshots = folder.deletingLastPathComponent()
        let repository = snapshots.deletingLastPathComponent().lastPathComponent
        if snapshots.lastPathComponent == "snapshots", repository.hasPrefix("models--"),
           let name = repository.components(separatedBy: "--").last, !name.isEmpty {
            return name
        }
        return folder.lastPathComponent
    }
}
