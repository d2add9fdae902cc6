import Foundation

/// The downloads of a Hub install: resumable (each file's partial download under `downloads/<id>/`, named for its
/// contents' hash), up to `hubParallelDownloads` at once, each file checked against the hash the Hub lists for it
/// (an LFS file's SHA-256, another's git blob id) before it joins the staging folder.
extension ModelStore {
    /// How many files of one model download at once.
    static let hubParallelDownloads = 4

    /// Downloads `files` of `reference` (at a commit) into `staging`, at most `hubParallelDownloads` at once, each
    /// resuming from its partial file under `downloads/<id>/`. A file whose bytes do not match the listing's hash
    /// is deleted, never resumed from, and the install fails.
    func downloadFromHub(_ files: [HubListing.File], of reference: HuggingFaceReference, client: HubClient,
                         modelID: String, into staging: URL, counter: ByteCounter) async throws -> [CatalogModel.File] {
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
