import Foundation

/// Installing a CTranslate2 Whisper model from a Hugging Face Hub repository, as every install: under the model's
/// lock, into a staging folder renamed into place once every file is checked. The revision is resolved to a commit;
/// the files a Whisper directory needs (`WhisperRepositoryFiles`) are downloaded (`HubDownloads.swift`), each
/// checked against the Hub's hashes, except those the user's Hugging Face cache holds at that commit, which are
/// linked to (`HubCacheLinks.swift`). With `HF_HUB_OFFLINE` set, only the cache is used and no request is made.
extension ModelStore {
    /// Installs `reference` as the model `id` (default: the repository's name; a model of that id is replaced) and
    /// records it in the home's user catalog with the commit installed, every file's size and SHA-256, and its
    /// languages (`languages`, else read from the model as `addUserModel` does). Returns at once, without
    /// downloading, when that commit is installed. `environment` defaults to the store's `hubEnvironment`, else the
    /// process's. `progress` receives bytes installed of the model's total. Throws a `ModelAssetError` saying what
    /// to do: a repository that does not exist, needs access or is not a CTranslate2 Whisper model, a revision it
    /// does not have, a download cut short or damaged, an offline cache without the model. Nothing is installed or
    /// recorded on failure.
    @discardableResult
    public func installFromHub(_ reference: HuggingFaceReference, id: String? = nil, languages: [String]? = nil,
                               environment: HubEnvironment? = nil,
                               progress: (@Sendable (_ completedBytes: Int64, _ totalBytes: Int64) -> Void)? = nil)
        async throws -> CatalogModel {
        var environment = environment ?? hubEnvironment ?? HubEnvironment()
        let modelID = id ?? reference.name
        guard Self.isValidID(modelID) else { throw ModelAssetError.invalidModelID(id: modelID) }
        // A damaged user catalog is reported before any work, not overwritten.
        _ = try Self.readUserCatalog(ModelCatalog.userCatalogURL(home: home))

        // The commit: the Hub's answer, or offline (or when the Hub cannot be reached) the cache's.
        let cache = HubCache(root: environment.cacheDirectory)
        var listing: HubListing?
        let commit: String
        if environment.isOffline {
            guard let cached = cache.commit(for: reference) else {
                throw ModelAssetError.hubOffline(repository: reference.repository, revision: reference.revision,
                                                 cachePath: cache.refFile(reference).path)
            }
            commit = cached
        } else {
            do {
                let fetched = try await HubClient(environment: environment).listing(of: reference)
                listing = fetched
                commit = fetched.commit
            } catch let error as ModelAssetError {
                guard case .downloadFailed = error, let cached = cache.commit(for: reference),
                      (try? offlinePlan(nil, HuggingFaceReference(repository: reference.repository, revision: cached),
                                        cache: cache)) != nil
                else { throw error }
                environment.isOffline = true
                commit = cached
            }
        }

        let source = ModelSource.huggingFace(repository: reference.repository, revision: commit)
        let entry = CatalogModel(id: modelID, family: "whisper", languages: [], files: [], sources: [source])
        var merged = catalog
        merged.merge(ModelCatalog(models: [entry]))
        var installer = ModelStore(home: home, catalog: merged)
        installer.fileWriting = fileWriting
        installer.http = http
        installer.hubEnvironment = environment
        installer.hubListing = listing
        let store = installer
        let directory = try await InstallCoordinator.shared.install(installKey(modelID), progress: progress) { report in
            try await store.performInstall(entry, report: report)
        }
        do {
            guard let manifest = InstallManifest.read(from: directory) else {
                throw ModelAssetError.fileSystem(path: directory.path, reason: "its install manifest cannot be read")
            }
            let pinned = try HuggingFaceReference(repository: reference.repository, revision: commit)
            let detected = try Self.whisperLanguages(in: directory, of: pinned, files: manifest.files)
            let model = CatalogModel(
                id: modelID, family: "whisper", languages: languages ?? detected,
                description: "Installed from \(reference) (commit \(commit))", files: manifest.files, sources: [source])
            if let problem = model.problem() {
                throw ModelAssetError.invalidModelDirectory(path: directory.path, reason: problem)
            }
            try recordUserModel(model)
            return model
        } catch {
            // Unrecorded, the folder would be an install no catalog lists.
            _ = try? await store.remove(modelID)
            throw error
        }
    }

    /// The languages of the Whisper model installed in `directory`; throws `notAWhisperRepository` when its
    /// `model.bin` is not one or `config.json` is not a JSON object.
    private static func whisperLanguages(in directory: URL, of reference: HuggingFaceReference,
                                         files: [CatalogModel.File]) throws -> [String] {
        func notWhisper(_ reason: String) -> ModelAssetError {
            .notAWhisperRepository(repository: reference.repository, revision: reference.revision, reason: reason,
                                   files: files.map(\.name))
        }
        do {
            _ = try WhisperModelLanguages.decoderVocabularySize(of: directory.appendingPathComponent("model.bin"))
        } catch let problem as WhisperModelLanguages.HeaderProblem {
            throw notWhisper("its model.bin \(problem.reason)")
        }
        guard let config = try? RegularFile.contents(of: directory.appendingPathComponent("config.json")),
              (try? JSONSerialization.jsonObject(with: config)) is [String: Any] else {
            throw notWhisper("its config.json is not a JSON object")
        }
        return try WhisperModelLanguages.languages(in: directory)
    }

    // MARK: The fetch step of `performInstall`

    /// Puts the files of `model` from the repository at `revision` in `staging`: links to the Hugging Face cache
    /// where it holds them, downloads otherwise. Returns the files, each with the size and SHA-256 checked, and
    /// the source as installed (the revision resolved to its commit).
    func fetchFromHub(_ model: CatalogModel, repository: String, revision: String, into staging: URL,
                      report: @escaping @Sendable (Int64, Int64) -> Void)
        async throws -> (files: [CatalogModel.File], origin: ModelSource) {
        let environment = hubEnvironment ?? HubEnvironment()
        let reference = try HuggingFaceReference(repository: repository, revision: revision)
        let cache = HubCache(root: environment.cacheDirectory)

        if environment.isOffline {
            guard let commit = cache.commit(for: reference) else {
                throw ModelAssetError.hubOffline(repository: repository, revision: revision,
                                                 cachePath: cache.refFile(reference).path)
            }
            let pinned = try HuggingFaceReference(repository: repository, revision: commit)
            let plan = try offlinePlan(model.files.isEmpty ? nil : model.files, pinned, cache: cache)
            var files: [CatalogModel.File] = []
            for (name, entry) in plan { files.append(try linkFromCache(entry, as: name, in: staging, modelID: model.id)) }
            let total = files.reduce(0) { $0 + $1.size }
            report(total, total)
            return (files, .huggingFace(repository: repository, revision: commit))
        }

        let client = HubClient(environment: environment)
        let listing: HubListing
        if let hubListing, hubListing.commit == revision {
            listing = hubListing
        } else {
            listing = try await client.listing(of: reference)
        }
        let pinned = try HuggingFaceReference(repository: repository, revision: listing.commit)
        let wanted = try wantedFiles(model, in: listing, reference: pinned)

        // What the cache holds at this commit is linked to; the rest is downloaded.
        let snapshot = cache.snapshotFolder(pinned, commit: listing.commit)
        var files: [CatalogModel.File] = []
        var downloads: [HubListing.File] = []
        for file in wanted {
            if let entry = cache.entry(file.name, in: snapshot), let sha256 = Self.cachedSHA256(entry, matching: file) {
                files.append(try linkFromCache(entry, as: file.name, sha256: sha256, in: staging, modelID: model.id))
            } else {
                downloads.append(file)
            }
        }
        let counter = ByteCounter(total: wanted.reduce(0) { $0 + $1.size }, report: report)
        counter.add(files.reduce(0) { $0 + $1.size })
        files += try await downloadFromHub(downloads, of: pinned, client: client, modelID: model.id, into: staging,
                                           counter: counter)
        let order = wanted.map(\.name)
        files.sort { order.firstIndex(of: $0.name) ?? 0 < order.firstIndex(of: $1.name) ?? 0 }
        return (files, .huggingFace(repository: repository, revision: listing.commit))
    }

    /// The listed files to install: the catalog's, if it names them, else those of a CTranslate2 Whisper directory.
    private func wantedFiles(_ model: CatalogModel, in listing: HubListing,
                             reference: HuggingFaceReference) throws -> [HubListing.File] {
        let names: [String]
        if model.files.isEmpty {
            let available = Set(listing.files.map(\.name).filter(CatalogModel.File.isValidName))
            switch WhisperRepositoryFiles.select(from: available) {
            case let .success(selected): names = selected
            case let .failure(missing):
                throw ModelAssetError.notAWhisperRepository(repository: reference.repository, revision: reference.revision,
                                                            reason: missing.reason, files: listing.files.map(\.name))
            }
        } else {
            names = model.files.map(\.name)
        }
        return try names.map { name in
            guard let file = listing.file(name) else {
                throw ModelAssetError.notAWhisperRepository(repository: reference.repository, revision: reference.revision,
                                                            reason: "it has no \(name)", files: listing.files.map(\.name))
            }
            guard file.sha256 != nil || file.blobID != nil else {
                throw ModelAssetError.invalidHubResponse(url: reference.description, reason: "it gives no hash for \(name)")
            }
            return file
        }
    }
}
