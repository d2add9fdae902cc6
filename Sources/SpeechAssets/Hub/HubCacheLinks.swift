import Foundation

/// A model used in place from the user's Hugging Face cache: its files are links to the snapshot's, no second copy.
/// A cached file is used only if it is the one the Hub lists (online) or, offline, if it is a regular file at the
/// size the catalog gives, if it gives one.
extension ModelStore {
    /// The SHA-256 of a cached file if it is the listed one: an LFS file's blob is named by the SHA-256 the Hub
    /// lists, another file (small) must have the listed git blob id. Sizes must agree too. Nil: download it.
    static func cachedSHA256(_ entry: HubCache.Entry, matching file: HubListing.File) -> String? {
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
        let names: [String]
        if let files {
            names = files.map(\.name)
        } else {
            let present = Set(cache.names(in: snapshot).filter { cache.entry($0, in: snapshot) != nil })
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
    func linkFromCache(_ entry: HubCache.Entry, as name: String, sha256: String? = nil, in staging: URL,
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
}
