import Foundation

/// Registering any CTranslate2 Whisper model directory as a user model (`openspeech models add DIR`).
extension ModelStore {
    /// Checks `directory` is a CTranslate2 Whisper model, records it in the home's user catalog with every file's
    /// SHA-256, and installs a verified copy under `models/<id>`. `id` defaults to the folder's name; `languages`
    /// default to English for an English-only vocabulary (51864 tokens), else Whisper's 99 languages.
    /// Returns the new catalog entry.
    @discardableResult
    public func addUserModel(from directory: URL, id: String? = nil, languages: [String]? = nil) async throws -> CatalogModel {
        let fileManager = FileManager.default
        var isDirectory: ObjCBool = false
        guard fileManager.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ModelAssetError.invalidModelDirectory(path: directory.path, reason: "no such folder")
        }
        let names = try fileManager.contentsOfDirectory(atPath: directory.path).filter { !$0.hasPrefix(".") }.sorted()
        for required in ["model.bin", "config.json"] where !names.contains(required) {
            throw ModelAssetError.invalidModelDirectory(path: directory.path, reason: "\(required) is missing")
        }
        guard names.contains(where: { $0.hasPrefix("vocabulary.") || $0 == "tokenizer.json" }) else {
            throw ModelAssetError.invalidModelDirectory(path: directory.path, reason: "neither vocabulary.* nor tokenizer.json is present")
        }
        guard let configData = try? Data(contentsOf: directory.appendingPathComponent("config.json")),
              (try? JSONSerialization.jsonObject(with: configData)) is [String: Any] else {
            throw ModelAssetError.invalidModelDirectory(path: directory.path, reason: "config.json is not a JSON object")
        }
        let modelID = id ?? directory.standardizedFileURL.lastPathComponent
        guard Self.isValidID(modelID) else {
            throw ModelAssetError.invalidModelDirectory(
                path: directory.path, reason: "'\(modelID)' is not a usable model id (letters, digits, '.', '-', '_'); pass one with --id")
        }
        var files: [CatalogModel.File] = []
        for name in names {
            let url = directory.appendingPathComponent(name)
            var fileIsDirectory: ObjCBool = false
            guard fileManager.fileExists(atPath: url.path, isDirectory: &fileIsDirectory), !fileIsDirectory.boolValue else { continue }
            let size = (try fileManager.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.int64Value ?? 0
            files.append(.init(name: name, size: size, sha256: try sha256OfFile(at: url)))
        }
        let model = CatalogModel(
            id: modelID, family: "whisper", languages: languages ?? Self.guessLanguages(directory),
            description: "User model added from \(directory.standardizedFileURL.path)", files: files,
            sources: [.directory(path: directory.standardizedFileURL.path)])

        // Record it (under a lock: other processes may add models too), then install through the usual path.
        let userCatalog = ModelCatalog.userCatalogURL(home: home)
        try fileManager.createDirectory(at: home, withIntermediateDirectories: true)
        try FileLock.withLock(locksDirectory.appendingPathComponent("user-models.lock")) {
            var catalog = (try? ModelCatalog(contentsOf: userCatalog)) ?? ModelCatalog(models: [])
            catalog.merge(ModelCatalog(models: [model]))
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(catalog).write(to: userCatalog, options: .atomic)
        }
        var merged = catalog
        merged.merge(ModelCatalog(models: [model]))
        var store = ModelStore(home: home, catalog: merged)
        store.fileWriting = fileWriting
        if installedDirectory(for: modelID) != nil || fileManager.fileExists(atPath: self.directory(for: modelID).path) {
            try await store.remove(modelID)
        }
        try await store.install(modelID)
        return model
    }

    /// English for an English-only vocabulary (51864 entries), else every Whisper language.
    static func guessLanguages(_ directory: URL) -> [String] {
        if let text = try? String(contentsOf: directory.appendingPathComponent("vocabulary.txt"), encoding: .utf8) {
            if text.split(separator: "\n").count == 51864 { return ["en"] }
        }
        return ModelCatalog.builtIn.model("whisper-base")?.languages ?? ["en"]
    }
}
