import Foundation

/// A repository at one commit, as the Hub lists it (`GET /api/models/OWNER/NAME/revision/REVISION?blobs=true`):
/// the commit the revision resolved to and the repository's files with their sizes and hashes.
struct HubListing: Sendable, Equatable {
    /// A file of the repository.
    struct File: Sendable, Equatable {
        /// The path in the repository (`model.bin`, `onnx/encoder.onnx`).
        var name: String
        var size: Int64
        /// The git blob id: SHA-1 of `"blob {size}\0"` and the content, lowercase hexadecimal.
        var blobID: String?
        /// The SHA-256 of the content, for a file stored with Git LFS (the large ones).
        var sha256: String?
    }

    /// The commit (40 lowercase hexadecimal digits).
    var commit: String
    var files: [File]

    /// The file at the top of the repository named `name`.
    func file(_ name: String) -> File? { files.first { $0.name == name } }

    /// Reads the API's JSON: `{"sha": COMMIT, "siblings": [{"rfilename", "size", "blobId", "lfs": {"sha256", "size"}}]}`.
    /// Throws `ModelAssetError.invalidHubResponse` for anything else: a missing or malformed commit, a file without
    /// a name or size, a negative size, a hash that is not hexadecimal, a name listed twice.
    init(json data: Data, url: String) throws {
        func invalid(_ reason: String) -> ModelAssetError { .invalidHubResponse(url: url, reason: reason) }
        let body: Body
        do {
            body = try JSONDecoder().decode(Body.self, from: data)
        } catch {
            throw invalid("it is not a model listing")
        }
        guard let commit = body.sha?.lowercased(), HuggingFaceReference.isCommitID(commit) else {
            throw invalid("it names no commit")
        }
        guard let siblings = body.siblings else { throw invalid("it lists no files") }
        var files: [File] = []
        var names: Set<String> = []
        for entry in siblings {
            guard let name = entry.rfilename, !name.isEmpty else { throw invalid("a file has no name") }
            guard names.insert(name).inserted else { throw invalid("it lists a file twice") }
            guard let size = entry.lfs?.size ?? entry.size else { throw invalid("it gives no size for a file") }
            guard size >= 0 else { throw invalid("it gives a negative size") }
            let blobID = entry.blobId?.lowercased()
            let sha256 = entry.lfs?.sha256?.lowercased()
            if let blobID, !Self.isHex(blobID, count: 40) { throw invalid("a git blob id is not 40 hexadecimal digits") }
            if entry.lfs != nil, !(sha256.map { Self.isHex($0, count: 64) } ?? false) {
                throw invalid("an LFS file's sha256 is not 64 hexadecimal digits")
            }
            files.append(File(name: name, size: size, blobID: blobID, sha256: sha256))
        }
        self.commit = commit
        self.files = files
    }

    /// The fields of the API's answer that are read; the others are ignored.
    private struct Body: Decodable {
        struct Sibling: Decodable {
            struct LFS: Decodable {
                var sha256: String?
                var size: Int64?
            }
            var rfilename: String?
            var size: Int64?
            var blobId: String?
            var lfs: LFS?
        }
        var sha: String?
        var siblings: [Sibling]?
    }

    init(commit: String, files: [File]) {
        self.commit = commit
        self.files = files
    }

    private static func isHex(_ text: String, count: Int) -> Bool {
        text.utf8.count == count && text.unicodeScalars.allSatisfy { ("0"..."9").contains($0) || ("a"..."f").contains($0) }
    }
}
