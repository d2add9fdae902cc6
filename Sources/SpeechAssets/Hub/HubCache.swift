import Foundation

/// The Hugging Face cache as `huggingface_hub` lays it out, read only: `{cache}/models--OWNER--NAME/` holds
/// `refs/REVISION` (a file holding the commit a branch or tag was last seen at) and `snapshots/COMMIT/FILE`, links
/// to `../../blobs/ETAG`, where an LFS file's blob is named by its SHA-256 and another file's by its git blob id.
struct HubCache: Sendable {
    let root: URL

    /// A file of a snapshot, read through its link.
    struct Entry: Sendable, Equatable {
        /// `snapshots/COMMIT/NAME`.
        var url: URL
        var size: Int64
        /// The name of the blob the snapshot's link leads to; nil when the entry is not a link.
        var blobName: String?
    }

    /// `{cache}/models--OWNER--NAME`.
    func repositoryFolder(_ reference: HuggingFaceReference) -> URL {
        root.appendingPathComponent("models--\(reference.owner)--\(reference.name)", isDirectory: true)
    }

    /// `{cache}/models--OWNER--NAME/refs/REVISION`.
    func refFile(_ reference: HuggingFaceReference) -> URL {
        repositoryFolder(reference).appendingPathComponent("refs/\(reference.revision)")
    }

    /// `{cache}/models--OWNER--NAME/snapshots/COMMIT`.
    func snapshotFolder(_ reference: HuggingFaceReference, commit: String) -> URL {
        repositoryFolder(reference).appendingPathComponent("snapshots/\(commit)", isDirectory: true)
    }

    /// The commit `reference` names as far as the cache knows: the revision itself when it is a commit, else
    /// the commit recorded in `refs/REVISION`.
    func commit(for reference: HuggingFaceReference) -> String? {
        if reference.isCommit { return reference.revision }
        guard let data = try? RegularFile.contents(of: refFile(reference)), data.count <= 256 else { return nil }
        let commit = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        return HuggingFaceReference.isCommitID(commit) ? commit : nil
    }

    /// The plain top-level names of the snapshot (folders and odd names included; `entry` tells files apart).
    func names(in snapshot: URL) -> Set<String> {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: snapshot.path)) ?? []
        return Set(names.filter(CatalogModel.File.isValidName))
    }

    /// `name` in the snapshot if it is, or links to, a regular file; nil for anything else (a dangling link, a
    /// folder, a FIFO) or nothing.
    func entry(_ name: String, in snapshot: URL) -> Entry? {
        guard CatalogModel.File.isValidName(name) else { return nil }
        let url = snapshot.appendingPathComponent(name)
        guard let size = RegularFile.size(of: url) else { return nil }
        let blob = try? FileManager.default.destinationOfSymbolicLink(atPath: url.path)
        return Entry(url: url, size: size, blobName: blob.map { URL(fileURLWithPath: $0).lastPathComponent })
    }
}
