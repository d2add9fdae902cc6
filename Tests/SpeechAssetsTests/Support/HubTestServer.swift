import Crypto
import Foundation
@testable import SpeechAssets

/// A model repository served over loopback as the Hugging Face Hub serves one: the API's listing of each revision
/// (`/api/models/OWNER/NAME/revision/REV?blobs=true`), the files under `/OWNER/NAME/resolve/COMMIT/FILE`, the
/// Hub's refusals with their `X-Error-Code`, and optionally LFS files redirected (302) to a second server, the
/// "CDN", reached as `localhost` while the Hub is `127.0.0.1`.
final class HubTestServer: Sendable {
    /// The repository: files per commit, branches naming commits.
    struct Repository: Sendable {
        var owner = "acme"
        var name = "whisper-test"
        var commits: [String: [String: Data]]
        var branches: [String: String]
        /// Files stored with LFS: listed with their SHA-256, redirected to the CDN when there is one.
        var lfs: Set<String> = ["model.bin", "pytorch_model.bin"]
        /// Files whose listed hash (SHA-256 for LFS, git blob id otherwise) is not that of the bytes served.
        var misreported: Set<String> = []
        /// Files listed but answered with 404 `EntryNotFound`.
        var unserved: Set<String> = []

        var id: String { "\(owner)/\(name)" }

        static let mainCommit = String(repeating: "a1", count: 20)
        static let v2Commit = String(repeating: "b2", count: 20)

        /// A Whisper repository as faster-whisper conversions are: model files, plus a README, `.gitattributes`,
        /// another format and a subfolder, none of which an install should request. `main` and `v2` hold
        /// different weights.
        static func whisper(modelBytes: Int = 3 * 1024 * 1024) -> Repository {
            var common: [String: Data] = [
                "config.json": Data(#"{"alignment_heads": [], "lang_ids": []}"#.utf8),
                "vocabulary.json": Data(#"["a", "b"]"#.utf8),
                "preprocessor_config.json": Data(#"{"feature_size": 80}"#.utf8),
                "README.md": Data("# whisper-test\n".utf8),
                ".gitattributes": Data("*.bin filter=lfs diff=lfs merge=lfs -text\n".utf8),
                "pytorch_model.bin": randomData(4096),
                "onnx/encoder.onnx": randomData(1024),
            ]
            var v2 = common
            common["model.bin"] = whisperModelBin(randomBytes: modelBytes)
            v2["model.bin"] = whisperModelBin(randomBytes: modelBytes / 2)
            return Repository(commits: [mainCommit: common, v2Commit: v2], branches: ["main": mainCommit, "v2": v2Commit])
        }

        /// The API's JSON for `commit`.
        func listing(_ commit: String) -> Data {
            let siblings: [[String: Any]] = (commits[commit] ?? [:]).keys.sorted().map { name in
                let data = commits[commit]![name]!
                var blob = gitBlobID(data)
                var sibling: [String: Any] = ["rfilename": name, "size": data.count]
                if lfs.contains(name) {
                    var sha = sha256Hex(data)
                    if misreported.contains(name) { sha = String(repeating: "0", count: 64) }
                    sibling["lfs"] = ["sha256": sha, "size": data.count, "pointerSize": 134]
                    blob = gitBlobID(Data("version https://git-lfs.github.com/spec/v1\noid sha256:\(sha)\n".utf8))
                } else if misreported.contains(name) {
                    blob = String(repeating: "0", count: 40)
                }
                sibling["blobId"] = blob
                return sibling
            }
            let object: [String: Any] = ["id": id, "modelId": id, "sha": commit, "private": false, "siblings": siblings]
            return try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        }
    }

    let repository: Repository
    /// The Hub: API and files.
    let hub: LoopbackHTTPServer
    /// Where LFS files are redirected, if anywhere.
    let cdn: LoopbackHTTPServer?

    /// Serves `repository`. `refuseAPI` makes every API request answer that status and `X-Error-Code` (a gated
    /// repository: 401 or 403). `behaviour` applies to the server sending the model file (the CDN when `cdn`).
    init(_ repository: Repository, cdn: Bool = false, refuseAPI: (status: Int, errorCode: String?)? = nil,
         behaviour: LoopbackHTTPServer.Behaviour = .init()) throws {
        self.repository = repository
        var hubFiles: [String: Data] = [:]
        var blobs: [String: Data] = [:]
        for (commit, files) in repository.commits {
            for (name, data) in files where !repository.unserved.contains(name) {
                if cdn && repository.lfs.contains(name) {
                    blobs["/blobs/\(sha256Hex(data))"] = data
                } else {
                    hubFiles["/\(repository.id)/resolve/\(commit)/\(HubTestServer.encoded(name))"] = data
                }
            }
        }
        let cdnServer = cdn ? try LoopbackHTTPServer(files: blobs, behaviour: behaviour) : nil
        let cdnPort = cdnServer?.port
        let served = hubFiles
        self.cdn = cdnServer
        hub = try LoopbackHTTPServer(files: hubFiles, behaviour: cdn ? .init() : behaviour) { request in
            Self.respond(to: request, repository: repository, files: served, cdnPort: cdnPort, refuseAPI: refuseAPI)
        }
    }

    deinit { stop() }

    func stop() {
        hub.stop()
        cdn?.stop()
    }

    /// The Hub's address, for `HF_ENDPOINT`.
    var endpoint: String { hub.url("") }

    /// Settings pointing at this Hub and the cache `cache`.
    func environment(cache: URL, token: String? = nil, offline: Bool = false) -> HubEnvironment {
        HubEnvironment(endpoint: endpoint, token: token, isOffline: offline, cacheDirectory: cache)
    }

    /// Every request either server received.
    var requests: [LoopbackHTTPServer.Request] { hub.requests + (cdn?.requests ?? []) }

    /// The names of the files requested from `/resolve/`, in order.
    var resolvedFiles: [String] {
        hub.requests.compactMap { request in
            request.path.range(of: "/resolve/").map { String(request.path[$0.upperBound...].split(separator: "/", maxSplits: 1)[1]) }
        }
    }

    /// The API requests received.
    var apiRequests: [LoopbackHTTPServer.Request] { hub.requests.filter { $0.path.hasPrefix("/api/") } }

    private static func respond(to request: LoopbackHTTPServer.Request, repository: Repository, files: [String: Data],
                                cdnPort: UInt16?, refuseAPI: (status: Int, errorCode: String?)?) -> LoopbackHTTPServer.Response? {
        func refusal(_ status: Int, _ code: String?) -> LoopbackHTTPServer.Response {
            .init(status: status, headers: code.map { ["X-Error-Code": $0] } ?? [:], body: Data(#"{"error":"refused"}"#.utf8))
        }
        let path = request.path
        if path.hasPrefix("/api/models/") {
            if let refuseAPI { return refusal(refuseAPI.status, refuseAPI.errorCode) }
            let parts = path.dropFirst("/api/models/".count).split(separator: "?")[0].split(separator: "/")
            guard parts.count == 4, "\(parts[0])/\(parts[1])" == repository.id, parts[2] == "revision" else {
                return refusal(404, "RepoNotFound")
            }
            let revision = String(parts[3]).removingPercentEncoding ?? ""
            guard let commit = repository.branches[revision] ?? (repository.commits[revision] != nil ? revision : nil) else {
                return refusal(404, "RevisionNotFound")
            }
            return .init(status: 200, headers: ["Content-Type": "application/json"], body: repository.listing(commit))
        }
        guard let resolve = path.range(of: "/resolve/") else { return refusal(404, "RepoNotFound") }
        let parts = path[resolve.upperBound...].split(separator: "/", maxSplits: 1).map(String.init)
        guard parts.count == 2, let name = parts[1].removingPercentEncoding, !repository.unserved.contains(name),
              let data = repository.commits[parts[0]]?[name] else { return refusal(404, "EntryNotFound") }
        if let cdnPort, repository.lfs.contains(name) {
            return .init(status: 302, headers: ["Location": "http://localhost:\(cdnPort)/blobs/\(sha256Hex(data))"])
        }
        return files[path] == nil ? refusal(404, "EntryNotFound") : nil
    }

    static func encoded(_ name: String) -> String {
        name.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? name
    }
}

/// Lays out a Hugging Face cache as `huggingface_hub` does: `models--OWNER--NAME/blobs/<sha256 or git blob id>`,
/// `snapshots/<commit>/<name>` relative links to them, `refs/<branch>` holding the commit.
func makeHubCache(at cache: URL, repository: HubTestServer.Repository, commit: String, names: [String]? = nil,
                  refs: [String] = ["main"]) throws {
    let folder = cache.appendingPathComponent("models--\(repository.owner)--\(repository.name)", isDirectory: true)
    let blobs = folder.appendingPathComponent("blobs", isDirectory: true)
    let snapshot = folder.appendingPathComponent("snapshots/\(commit)", isDirectory: true)
    let refsFolder = folder.appendingPathComponent("refs", isDirectory: true)
    for directory in [blobs, snapshot, refsFolder] {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }
    let files = repository.commits[commit] ?? [:]
    for name in names ?? ["model.bin", "config.json", "vocabulary.json", "preprocessor_config.json"] {
        let data = files[name]!
        let blob = repository.lfs.contains(name) ? sha256Hex(data) : gitBlobID(data)
        try data.write(to: blobs.appendingPathComponent(blob))
        try FileManager.default.createSymbolicLink(atPath: snapshot.appendingPathComponent(name).path,
                                                   withDestinationPath: "../../blobs/\(blob)")
    }
    for ref in refs { try Data(commit.utf8).write(to: refsFolder.appendingPathComponent(ref)) }
}

/// A `model.bin` whose CTranslate2 header is a Whisper model's with an English-only vocabulary (51,864 tokens),
/// followed by `randomBytes` random bytes: enough for the installer's checks, nothing an engine could load.
func whisperModelBin(randomBytes: Int) -> Data {
    var data = Data()
    func u32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
    func name(_ text: String) {
        let bytes = Array(text.utf8) + [0]
        withUnsafeBytes(of: UInt16(bytes.count).littleEndian) { data.append(contentsOf: $0) }
        data.append(contentsOf: bytes)
    }
    u32(6)
    name("WhisperSpec")
    u32(1)
    u32(1)
    name("decoder/embeddings/weight")
    data.append(2)
    u32(51_864)
    u32(8)
    data.append(0)
    u32(0)
    return data + randomData(randomBytes)
}

func randomData(_ count: Int) -> Data {
    var generator = SystemRandomNumberGenerator()
    var words = [UInt64](repeating: 0, count: (count + 7) / 8)
    for index in words.indices { words[index] = generator.next() }
    return words.withUnsafeBytes { Data($0.prefix(count)) }
}

func sha256Hex(_ data: Data) -> String {
    SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
}

/// git's id of a blob holding `data`, computed here independently of the code under test.
func gitBlobID(_ data: Data) -> String {
    Insecure.SHA1.hash(data: Data("blob \(data.count)\u{0}".utf8) + data).map { String(format: "%02x", $0) }.joined()
}
