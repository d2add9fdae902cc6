import Foundation

/// Installing a CTranslate2 Whisper model from a Hugging Face Hub repository, as every install: under the model's
/// lock, into a staging folder renamed into place once every file is checked. The revision is resolved to a commit;
/// the files a Whisper directory needs (`WhisperRepositoryFiles`) are downloaded, resumably and up to four at once,
/// each checked against the Hub's hashes (an LFS file's SHA-256, another's git blob id). A file already in the
/// user's Hugging Face cache at that commit is linked to, not copied. With `HF_HUB_OFFLINE` set, only the cache is
/// used and no request is made.
extension ModelStore {
    /// How many files of one model download at once.
    static let hubParallelDownloads = 4

    /// Installs `reference` as the model `id` (default: the repository's name) and records it in the home's user
    /// catalog, with the commit installed, every file's size and SHA-256, and its languages (`languages`, else read
    /// from the model as `addUserModel` does). Returns at once, without downloading, when that commit is installed.
    /// `environment` defaults to the store's `hubEnvironment`, else the process's. `progress` receives bytes
    /// installed of the model's total. Throws a `ModelAssetError` saying what to do: a repository that does not
    /// exist, needs access or is not a CTranslate2 Whisper model, a revision it does not have, a download cut
    /// short or damaged, an offline cache without the model. Nothing is installed or recorded on failure.
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
                      report: @escaping @Sendable (Int64, Int64) -> Void) async throws -> (files: [CatalogModel.File], origin: ModelSource) {
        let environment = hubEnvironment ?? HubEnvironment()
        let reference = try HuggingFaceReference(repository: repository, revision: revision)
        let cache = HubCache(root: environment.cacheDirectory)

        if environment.isOffline {
            guard let commit = cache.commit(for: reference) else {
                throw ModelAssetError.hubOffline(repository: repository, revision: revision, cachePath: cache.refFile(reference).path)
            }
            let pinned = try HuggingFaceReference(repository: repository, revision: commit)
            let plan = try offlinePlan(model.files.isEmpty ? nil : model.files, pinned, cache: cache)
            var files: [CatalogModel.File] = []
            for (name, entry) in plan { files.append(try link(entry, as: name, in: staging, modelID: model.id)) }
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
                files.append(try link(entry, as: file.name, sha256: sha256, in: staging, modelID: model.id))
            } else {
                downloads.append(file)
            }
        }
        let counter = ByteCounter(total: wanted.reduce(0) { $0 + $1.size }, report: report)
        counter.add(files.reduce(0) { $0 + $1.size })
        files += try await download(downloads, of: pinned, client: client, modelID: model.id, into: staging, counter: counter)
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

    /// The SHA-256 of a cached file if it is the listed one: an LFS file's blob is named by the SHA-256 the Hub
    /// lists, another file (small) must have the listed git blob id. Sizes must agree too. Nil: download it.
    private static func cachedSHA256(_ entry: HubCache.Entry, matching file: HubListing.File) -> String? {
        guard entry.size == file.size else { return nil }
        if let sha256 = file.sha256 { return entry.blobName == sha256 ? sha256 : nil }
        guard let blobID = file.blobID, (try? GitBlobID.of(entry.url)) == blobID else { return nil }
        return try? FileDigest(of: entry.url).sha256
    }

    /// The cached files of `reference` (at a commit) to link to with `HF_HUB_OFFLINE`: the catalog's `files`, at
    /// their sizes, or those of a CTranslate2 Whisper directory. Throws `hubOffline` naming the snapshot looked at.
    func offlinePlan(_ files: [CatalogModel.File]?, _ reference: HuggingFaceReference,
                     cache: HubCache) throws -> [(name: String, entry: HubCache.Entry)] {
        let snapshot = cache.snapshotFolder(reference, commit: reference.revision)
        let incomplete = ModelAssetError.hubOffline(repository: reference.repository, revision: reference.revision,
                                                    cachePath: snapshot.path)
        let present = Set(cache.names(in: snapshot).filter { cache.entry($0, in: snapshot) != nil })
        let names: [String]
        if let files {
            names = files.map(\.name)
        } else {
            guard case let .success(selected) = WhisperRepositoryFiles.select(from: present) else { throw incomplete }
            names = selected
        }
        return try names.map { name in
            guard let entry = cache.entry(name, in: snapshot),
                  files?.first(where: { $0.name == name }).map({ $0.size == entry.size }) ?? true
            else { throw incomplete }
            return (name, entry)
        }
    }

    /// Links `name` in `staging` to the cached file. The SHA-256 recorded is `sha256` if given, else the blob's
    /// name when it is one (an LFS blob is named by its SHA-256), else that of the bytes (a small file).
    private func link(_ entry: HubCache.Entry, as name: String, sha256: String? = nil, in staging: URL,
                      modelID: String) throws -> CatalogModel.File {
        let digest = try sha256 ?? entry.blobName.flatMap { Self.isSHA256($0) ? $0 : nil } ?? FileDigest(of: entry.url).sha256
        let target = try pathUnderHome(name, in: staging, modelID: modelID)
        do {
            try FileManager.default.createSymbolicLink(atPath: target.path, withDestinationPath: entry.url.path)
        } catch {
            throw ModelAssetError.fileSystem(path: target.path, reason: error.localizedDescription)
        }
        return CatalogModel.File(name: name, size: entry.size, sha256: digest)
    }

    private static func isSHA256(_ text: String) -> Bool {
        text.utf8.count == 64 && text.unicodeScalars.allSatisfy { ("0"..."9").contains($0) || ("a"..."f").contains($0) }
    }

    // MARK: Downloads

    /// Downloads `files` of `reference` (at a commit) into `staging`, at most `hubParallelDownloads` at once, each
    /// resuming from its partial file under `downloads/<id>/`. A file whose bytes do not match the listing's hash
    /// is deleted, never resumed from, and the install fails.
    private func download(_ files: [HubListing.File], of reference: HuggingFaceReference, client: HubClient, modelID: String,
                          into staging: URL, counter: ByteCounter) async throws -> [CatalogModel.File] {
        guard !files.isEmpty else { return [] }
        let partials = try downloadsFolder(for: modelID)
        do {
            try FileManager.default.createDirectory(at: partials, withIntermediateDirectories: true)
        } catch {
            throw ModelAssetError.fileSystem(path: partials.path, reason: error.localizedDescription)
        }
        // Partial files of other contents (another commit's) would never be resumed: they go.
        let kept = Set(files.map { $0.name + Self.partialSuffix($0) })
        for name in (try? FileManager.default.contentsOfDirectory(atPath: partials.path)) ?? [] where !kept.contains(name) {
            try? FileManager.default.removeItem(at: partials.appendingPathComponent(name))
        }
        let credentials = try client.credentials()
        let downloaded: [CatalogModel.File]
        do {
            downloaded = try await downloadInParallel(files, of: reference, client: client, credentials: credentials,
                                                      modelID: modelID, partials: partials, staging: staging, counter: counter)
        } catch {
            // The other files' partial downloads stay to be resumed; an empty folder does not.
            if (try? FileManager.default.contentsOfDirectory(atPath: partials.path))?.isEmpty == true {
                try? FileManager.default.removeItem(at: partials)
            }
            throw error
        }
        try? FileManager.default.removeItem(at: partials)
        return downloaded
    }

    /// Runs `downloadFile` for each of `files`, `hubParallelDownloads` at a time; the first failure cancels the rest.
    private func downloadInParallel(_ files: [HubListing.File], of reference: HuggingFaceReference, client: HubClient,
                                    credentials: HTTPCredentials?, modelID: String, partials: URL, staging: URL,
                                    counter: ByteCounter) async throws -> [CatalogModel.File] {
        let store = self
        return try await withThrowingTaskGroup(of: CatalogModel.File.self) { group in
            var pending = files.makeIterator()
            func start(_ file: HubListing.File) throws {
                let url = try client.fileURL(reference, commit: reference.revision, file: file.name)
                let refusal = client.refusal(reference, file: file.name)
                group.addTask {
                    try await store.downloadFile(file, from: url, credentials: credentials, refusal: refusal,
                                                 modelID: modelID, partials: partials, staging: staging, counter: counter)
                }
            }
            for _ in 0..<Self.hubParallelDownloads {
                guard let file = pending.next() else { break }
                try start(file)
            }
            var done: [CatalogModel.File] = []
            while let file = try await group.next() {
                done.append(file)
                if let next = pending.next() { try start(next) }
            }
            return done
        }
    }

    /// `.<hash prefix>.partial`, after the file's name: a partial download is resumed only towards the same contents.
    private static func partialSuffix(_ file: HubListing.File) -> String {
        ".\((file.sha256 ?? file.blobID ?? "").prefix(16)).partial"
    }

    /// Downloads one file and checks its size and hash, then moves it into `staging`.
    private func downloadFile(_ file: HubListing.File, from url: URL, credentials: HTTPCredentials?,
                              refusal: @escaping HTTPDownloader.Refusal, modelID: String, partials: URL, staging: URL,
                              counter: ByteCounter) async throws -> CatalogModel.File {
        let partial = try pathUnderHome(file.name, suffix: Self.partialSuffix(file), in: partials, modelID: modelID)
        let output = try pathUnderHome(file.name, in: staging, modelID: modelID)
        var sink = try resumableSink(partial, fileWriting: fileWriting, counter: counter)
        if sink.byteCount > file.size {
            // Longer than the file can be: start over.
            try? FileManager.default.removeItem(at: partial)
            sink = try resumableSink(partial, fileWriting: fileWriting, counter: counter)
        }
        do {
            try await http.download(url, expectedSize: file.size, sink: sink, credentials: credentials, refusal: refusal,
                                    reportBytes: counter.add)
        } catch {
            // Nothing to resume from: no empty partial file is left behind.
            if sink.byteCount == 0 {
                _ = try? sink.finish()
                try? FileManager.default.removeItem(at: partial)
            }
            throw error
        }
        let digest = try sink.finish()
        let mismatch: ModelAssetError?
        if sink.byteCount != file.size {
            mismatch = .sizeMismatch(model: modelID, file: file.name, expected: file.size, actual: sink.byteCount)
        } else if let sha256 = file.sha256 {
            mismatch = digest == sha256 ? nil
                : .checksumMismatch(model: modelID, file: file.name, expected: sha256, actual: digest)
        } else if let blobID = file.blobID {
            let actual = try GitBlobID.of(partial)
            mismatch = actual == blobID ? nil
                : .gitBlobMismatch(model: modelID, file: file.name, expected: blobID, actual: actual)
        } else {
            mismatch = nil
        }
        if let mismatch {
            // Wrong bytes: never resume from them.
            try? FileManager.default.removeItem(at: partial)
            throw mismatch
        }
        do {
            try FileManager.default.moveItem(at: partial, to: output)
        } catch {
            throw ModelAssetError.fileSystem(path: output.path, reason: error.localizedDescription)
        }
        return CatalogModel.File(name: file.name, size: file.size, sha256: digest)
    }
}
