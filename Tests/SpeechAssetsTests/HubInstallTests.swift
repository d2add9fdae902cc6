import Foundation
import Testing
import TestSupport
@testable import SpeechAssets
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Installs from a Hugging Face Hub (`hf:OWNER/NAME[@REVISION]`), against a loopback Hub started and stopped by
/// each test, and from a Hugging Face cache laid out as `huggingface_hub` leaves it.
@Suite struct HubInstallTests {
    let root: URL
    init() throws { root = try makeTemporaryDirectory("openspeech-hub") }

    var home: URL { root.appendingPathComponent("home", isDirectory: true) }
    var cache: URL { root.appendingPathComponent("hf-cache", isDirectory: true) }
    static let reference = try! HuggingFaceReference(parsing: "hf:acme/whisper-test")
    static let whisperFiles = ["model.bin", "config.json", "vocabulary.json", "preprocessor_config.json"]
    static let main = HubTestServer.Repository.mainCommit

    func store() -> ModelStore { ModelStore(home: home, catalog: .builtIn) }

    /// The snapshot file `name` of the cache at `commit`.
    func cached(_ name: String, commit: String = main) -> URL {
        cache.appendingPathComponent("models--acme--whisper-test/snapshots/\(commit)/\(name)")
    }

    /// Checks `directory` holds the repository's Whisper files at `commit`, as copies (or links into the cache).
    func expectInstalled(_ directory: URL, repository: HubTestServer.Repository, commit: String = main,
                         links: Bool = false) throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { !$0.hasPrefix(".") }
        #expect(Set(names) == Set(Self.whisperFiles))
        for name in Self.whisperFiles {
            let file = directory.appendingPathComponent(name)
            #expect(try Data(contentsOf: file) == repository.commits[commit]![name]!, "\(name)")
            let target = try? FileManager.default.destinationOfSymbolicLink(atPath: file.path)
            #expect(target == (links ? cached(name, commit: commit).path : nil), "\(name)")
        }
    }

    @Test func installsTheWhisperFilesOfMainAndRecordsTheCommit() async throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let repository = HubTestServer.Repository.whisper()
        let server = try HubTestServer(repository)
        defer { server.stop() }
        let log = ProgressLog()
        let model = try await store().installFromHub(Self.reference, environment: server.environment(cache: cache)) {
            log.add($0, $1)
        }
        #expect(model.id == "whisper-test", "the repository's name")
        #expect(model.sources == [.huggingFace(repository: "acme/whisper-test", revision: Self.main)])
        #expect(model.languages == ["en"], "read from model.bin: an English-only vocabulary")
        for file in model.files {
            let data = try #require(repository.commits[Self.main]?[file.name])
            #expect(file == CatalogModel.File(name: file.name, size: Int64(data.count), sha256: sha256Hex(data)))
        }
        // One listing, then exactly the files a Whisper directory needs, at the commit `main` names.
        #expect(server.apiRequests.map { $0.path } == ["/api/models/acme/whisper-test/revision/main?blobs=true"])
        #expect(Set(server.resolvedFiles) == Set(Self.whisperFiles) && server.resolvedFiles.count == 4)
        #expect(server.hub.requests.filter { $0.path.contains("/resolve/") }.allSatisfy { $0.path.contains("/resolve/\(Self.main)/") })
        let total = model.files.reduce(0) { $0 + $1.size }
        #expect(log.last.map { $0.0 == total && $0.1 == total } == true)

        // Recorded in the user catalog: a store reading the home finds it, by its id and by the reference.
        let reloaded = ModelStore(home: home)
        let directory = try #require(reloaded.installedDirectory(for: "whisper-test"))
        #expect(reloaded.installedDirectory(for: "hf:acme/whisper-test") == directory)
        #expect(reloaded.catalog.model("hf:acme/whisper-test")?.id == "whisper-test")
        #expect(reloaded.catalog.model("whisper-test") == model)
        try expectInstalled(directory, repository: repository)
        #expect(InstallManifest.read(from: directory)?.origin == .huggingFace(repository: "acme/whisper-test", revision: Self.main))
        #expect(InstallManifest.read(from: directory)?.source.contains(Self.main) == true)
        #expect(leftovers(in: reloaded).allSatisfy { $0.hasPrefix("models/") })

        // Installed at that commit: installing again asks for the listing only; `install` with the id, nothing.
        let before = server.requests.count
        try await reloaded.installFromHub(Self.reference, environment: server.environment(cache: cache))
        #expect(server.requests.count == before + 1)
        #expect(try await reloaded.install("hf:acme/whisper-test") == directory)
        #expect(server.requests.count == before + 1)
    }

    @Test(arguments: ["v2", HubTestServer.Repository.v2Commit, HubTestServer.Repository.mainCommit])
    func aRevisionInstallsItsCommit(revision: String) async throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let repository = HubTestServer.Repository.whisper()
        let server = try HubTestServer(repository)
        defer { server.stop() }
        let commit = repository.branches[revision] ?? revision
        let reference = try HuggingFaceReference(parsing: "hf:acme/whisper-test@\(revision)")
        let model = try await store().installFromHub(reference, id: "pinned", environment: server.environment(cache: cache))
        #expect(model.id == "pinned")
        #expect(model.sources == [.huggingFace(repository: "acme/whisper-test", revision: commit)])
        #expect(server.apiRequests.map { $0.path } == ["/api/models/acme/whisper-test/revision/\(revision)?blobs=true"])
        #expect(server.hub.requests.filter { $0.path.contains("/resolve/") }.allSatisfy { $0.path.contains("/resolve/\(commit)/") })
        let directory = try #require(ModelStore(home: home).installedDirectory(for: "pinned"))
        try expectInstalled(directory, repository: repository, commit: commit)
        // A reference to the commit finds this install; one to the other commit does not.
        let other = commit == Self.main ? HubTestServer.Repository.v2Commit : Self.main
        #expect(ModelStore(home: home).installedDirectory(for: "hf:acme/whisper-test@\(commit)") == directory)
        #expect(ModelStore(home: home).installedDirectory(for: "hf:acme/whisper-test@\(other)") == nil)
    }

    @Test func resumesAfterTheConnectionIsCut() async throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let repository = HubTestServer.Repository.whisper()
        let cut = 1_000_000
        let server = try HubTestServer(repository, behaviour: .init(cutFirstResponseAfter: cut))
        defer { server.stop() }
        try await store().installFromHub(Self.reference, environment: server.environment(cache: cache))
        let modelRequests = server.hub.requests.filter { $0.path.hasSuffix("/model.bin") }
        #expect(modelRequests.count == 2)
        #expect(modelRequests.first?.range == nil)
        #expect(modelRequests.last?.range == "bytes=\(cut)-")
        try expectInstalled(try #require(ModelStore(home: home).installedDirectory(for: "whisper-test")), repository: repository)
    }

    /// A file whose bytes are not those the Hub lists (an LFS file's SHA-256, a small file's git blob id) is refused,
    /// its download deleted, and nothing installed or recorded.
    @Test(arguments: ["model.bin", "config.json"])
    func aHashMismatchIsRefusedAndNothingIsLeft(file: String) async throws {
        defer { try? FileManager.default.removeItem(at: root) }
        var repository = HubTestServer.Repository.whisper()
        repository.misreported = [file]
        let server = try HubTestServer(repository)
        defer { server.stop() }
        let store = store()
        await #expect {
            try await store.installFromHub(Self.reference, environment: server.environment(cache: cache))
        } throws: { error in
            guard let error = error as? ModelAssetError else { return false }
            switch error {
            case let .checksumMismatch(model, name, _, _): return file == "model.bin" && model == "whisper-test" && name == file
            case let .gitBlobMismatch(model, name, _, _): return file == "config.json" && model == "whisper-test" && name == file
            default: return false
            }
        }
        #expect(store.installedDirectory(for: "whisper-test") == nil)
        #expect(!FileManager.default.fileExists(atPath: ModelCatalog.userCatalogURL(home: home).path))
        // The damaged download is gone; another file's may stay to be resumed (model.bin, cut short by the failure
        // of config.json).
        let left = leftovers(in: store)
        #expect(!left.contains { $0.hasPrefix("models/") || $0.hasPrefix("tmp/") || $0.contains("/\(file).") }, "\(left)")
        if file == "model.bin" { #expect(left == [], "the small files were complete and are gone with the staging folder") }
    }

    @Test(arguments: [(401, nil), (403, "GatedRepo")] as [(Int, String?)])
    func aGatedRepositorySaysHowToGetAccess(status: Int, code: String?) async throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let server = try HubTestServer(.whisper(), refuseAPI: (status, code))
        defer { server.stop() }
        for token in [nil, "hf_refused"] as [String?] {
            await #expect {
                try await store().installFromHub(Self.reference, environment: server.environment(cache: cache, token: token))
            } throws: { error in
                let text = (error as? ModelAssetError)?.description ?? ""
                return text.contains("needs access: accept its conditions at \(server.endpoint)/acme/whisper-test")
                    && text.contains("set HF_TOKEN to a read token")
                    && text.contains("the token given was refused") == (token != nil)
            }
        }
        #expect(server.resolvedFiles.isEmpty)
        #expect(leftovers(in: store()) == [])
    }

    @Test func aMissingRepositoryOrRevisionIsNamed() async throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let server = try HubTestServer(.whisper())
        defer { server.stop() }
        let environment = server.environment(cache: cache)
        await #expect {
            try await store().installFromHub(try HuggingFaceReference(parsing: "hf:acme/no-such-model"), environment: environment)
        } throws: { error in
            guard case let .hubRepositoryNotFound(repository, _) = error as? ModelAssetError else { return false }
            return repository == "acme/no-such-model"
                && (error as? ModelAssetError)?.description.contains("has no model repository acme/no-such-model") == true
        }
        await #expect {
            try await store().installFromHub(try HuggingFaceReference(parsing: "hf:acme/whisper-test@v9"), environment: environment)
        } throws: { error in
            guard case let .hubRevisionNotFound(repository, revision) = error as? ModelAssetError else { return false }
            return repository == "acme/whisper-test" && revision == "v9"
                && (error as? ModelAssetError)?.description.contains("has no revision 'v9'") == true
        }
        #expect(server.resolvedFiles.isEmpty)
        #expect(leftovers(in: store()) == [])
    }

    @Test func aListedFileTheHubDoesNotServeIsNamed() async throws {
        defer { try? FileManager.default.removeItem(at: root) }
        var repository = HubTestServer.Repository.whisper()
        repository.unserved = ["vocabulary.json"]
        let server = try HubTestServer(repository)
        defer { server.stop() }
        await #expect {
            try await store().installFromHub(Self.reference, environment: server.environment(cache: cache))
        } throws: { error in
            guard case let .hubFileNotFound(repository, revision, file) = error as? ModelAssetError else { return false }
            return repository == "acme/whisper-test" && revision == Self.main && file == "vocabulary.json"
                && (error as? ModelAssetError)?.description.contains("run the install again") == true
        }
        #expect(store().installedDirectory(for: "whisper-test") == nil)
        #expect(!leftovers(in: store()).contains { $0.hasPrefix("models/") || $0.hasPrefix("tmp/") })
    }

    @Test func aRepositoryWithoutModelBinIsNotAWhisperModel() async throws {
        defer { try? FileManager.default.removeItem(at: root) }
        var repository = HubTestServer.Repository.whisper()
        repository.commits[Self.main]?["model.bin"] = nil
        let server = try HubTestServer(repository)
        defer { server.stop() }
        await #expect {
            try await store().installFromHub(Self.reference, environment: server.environment(cache: cache))
        } throws: { error in
            guard case let .notAWhisperRepository(_, revision, reason, files) = error as? ModelAssetError else { return false }
            let text = (error as? ModelAssetError)?.description ?? ""
            return revision == Self.main && reason.contains("model.bin") && files.contains("README.md")
                && text.contains("not a CTranslate2 Whisper model") && text.contains("faster-whisper-*")
                && text.contains("*-ct2") && text.contains("README.md")
        }
        #expect(server.resolvedFiles.isEmpty)
        #expect(leftovers(in: store()) == [])
    }

    /// A `model.bin` that is not a Whisper model's is refused after it is checked, and nothing is left installed.
    @Test func aModelBinOfAnotherModelIsRefused() async throws {
        defer { try? FileManager.default.removeItem(at: root) }
        var repository = HubTestServer.Repository.whisper()
        repository.commits[Self.main]?["model.bin"] = randomData(4096)
        let server = try HubTestServer(repository)
        defer { server.stop() }
        await #expect {
            try await store().installFromHub(Self.reference, languages: ["en"], environment: server.environment(cache: cache))
        } throws: { error in
            guard case let .notAWhisperRepository(_, _, reason, _) = error as? ModelAssetError else { return false }
            return reason.contains("model.bin")
        }
        #expect(store().installedDirectory(for: "whisper-test") == nil)
        #expect(!FileManager.default.fileExists(atPath: ModelCatalog.userCatalogURL(home: home).path))
    }

    /// The Hub redirects LFS files to a CDN on another host: the token goes to the Hub only, and a resumed
    /// download keeps its `Range` through the redirect.
    @Test func theTokenIsSentToTheHubAndNotToTheCDN() async throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let repository = HubTestServer.Repository.whisper()
        let cut = 1_000_000
        let server = try HubTestServer(repository, cdn: true, behaviour: .init(cutFirstResponseAfter: cut))
        defer { server.stop() }
        let cdn = try #require(server.cdn)
        try await store().installFromHub(Self.reference, environment: server.environment(cache: cache, token: "hf_secret"))
        #expect(!server.hub.requests.isEmpty)
        #expect(server.hub.requests.allSatisfy { $0.authorization == "Bearer hf_secret" })
        let blob = "/blobs/\(sha256Hex(repository.commits[Self.main]!["model.bin"]!))"
        #expect(cdn.requests.map { $0.path } == [blob, blob])
        #expect(cdn.requests.allSatisfy { $0.authorization == nil }, "\(cdn.requests)")
        #expect(cdn.requests.last?.range == "bytes=\(cut)-")
        try expectInstalled(try #require(ModelStore(home: home).installedDirectory(for: "whisper-test")), repository: repository)
    }

    /// With `HF_HUB_OFFLINE`, a snapshot in the cache installs as links to it without a single request; the links
    /// are followed by every check, and removing the model leaves the cache alone.
    @Test func offlineACachedSnapshotIsUsedInPlace() async throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let repository = HubTestServer.Repository.whisper()
        try makeHubCache(at: cache, repository: repository, commit: Self.main)
        let server = try HubTestServer(repository)
        defer { server.stop() }
        let store = store()
        let model = try await store.installFromHub(Self.reference, environment: server.environment(cache: cache, offline: true))
        #expect(server.requests.isEmpty)
        #expect(model.sources == [.huggingFace(repository: "acme/whisper-test", revision: Self.main)])
        #expect(model.languages == ["en"])
        let modelBin = repository.commits[Self.main]!["model.bin"]!
        #expect(model.files.first { $0.name == "model.bin" }?.sha256 == sha256Hex(modelBin))
        let directory = try #require(ModelStore(home: home).installedDirectory(for: "whisper-test"))
        try expectInstalled(directory, repository: repository, links: true)
        #expect(leftovers(in: store).allSatisfy { $0.hasPrefix("models/") })

        // A link whose blob is gone is not an installed file.
        let blob = cache.appendingPathComponent("models--acme--whisper-test/blobs/\(sha256Hex(modelBin))")
        let moved = root.appendingPathComponent("moved-blob")
        try FileManager.default.moveItem(at: blob, to: moved)
        #expect(ModelStore(home: home).installedDirectory(for: "whisper-test") == nil)
        // Nor is a link to a FIFO (told by its type, never opened: the check returns).
        #expect(mkfifo(blob.path, 0o600) == 0)
        #expect(ModelStore(home: home).installedDirectory(for: "whisper-test") == nil)
        try FileManager.default.removeItem(at: blob)
        try FileManager.default.moveItem(at: moved, to: blob)
        #expect(ModelStore(home: home).installedDirectory(for: "whisper-test") == directory)

        #expect(try await ModelStore(home: home).remove("whisper-test"))
        #expect(FileManager.default.fileExists(atPath: blob.path), "removing the model keeps the cache")
        #expect(try Data(contentsOf: cached("model.bin")) == modelBin)
    }

    @Test func offlineWithoutACachedSnapshotSaysToGoOnline() async throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let repository = HubTestServer.Repository.whisper()
        let server = try HubTestServer(repository)
        defer { server.stop() }
        // Nothing cached, then a snapshot lacking model.bin: both refused, naming where the cache was looked at.
        for names in [nil, ["config.json", "vocabulary.json"]] as [[String]?] {
            if let names { try makeHubCache(at: cache, repository: repository, commit: Self.main, names: names) }
            await #expect {
                try await store().installFromHub(Self.reference, environment: server.environment(cache: cache, offline: true))
            } throws: { error in
                guard case let .hubOffline(_, _, path) = error as? ModelAssetError else { return false }
                let text = (error as? ModelAssetError)?.description ?? ""
                return path.hasPrefix(cache.path + "/models--acme--whisper-test/") && text.contains(path)
                    && text.contains("unset HF_HUB_OFFLINE")
            }
        }
        #expect(server.requests.isEmpty)
        #expect(leftovers(in: store()) == [])
    }

    /// A Hub that cannot be reached is no failure when the cache holds the revision, as with `huggingface_hub`.
    @Test func anUnreachableHubFallsBackToTheCache() async throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let repository = HubTestServer.Repository.whisper()
        try makeHubCache(at: cache, repository: repository, commit: Self.main)
        let endpoint = "http://127.0.0.1:1"  // Nothing listens on port 1: the connection is refused.
        let environment = HubEnvironment(endpoint: endpoint, cacheDirectory: cache)
        let model = try await store().installFromHub(Self.reference, environment: environment)
        #expect(model.sources == [.huggingFace(repository: "acme/whisper-test", revision: Self.main)])
        let directory = try #require(ModelStore(home: home).installedDirectory(for: "whisper-test"))
        try expectInstalled(directory, repository: repository, links: true)
        // Without the cache, the network error is the one reported.
        await #expect {
            try await store().installFromHub(try HuggingFaceReference(parsing: "hf:acme/other"), environment: environment)
        } throws: { error in
            guard case .downloadFailed = error as? ModelAssetError else { return false }
            return true
        }
    }

    /// Online, files the cache holds at the commit `main` names are linked to, not downloaded.
    @Test func onlineACompleteCachedSnapshotDownloadsNothing() async throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let repository = HubTestServer.Repository.whisper()
        try makeHubCache(at: cache, repository: repository, commit: Self.main)
        let server = try HubTestServer(repository)
        defer { server.stop() }
        try await store().installFromHub(Self.reference, environment: server.environment(cache: cache))
        #expect(server.apiRequests.count == 1)
        #expect(server.resolvedFiles.isEmpty)
        let directory = try #require(ModelStore(home: home).installedDirectory(for: "whisper-test"))
        try expectInstalled(directory, repository: repository, links: true)
    }

    /// A cached file that is not the listed one (another blob) is downloaded instead of linked.
    @Test func onlineAStaleCachedFileIsDownloaded() async throws {
        defer { try? FileManager.default.removeItem(at: root) }
        var repository = HubTestServer.Repository.whisper()
        try makeHubCache(at: cache, repository: repository, commit: Self.main)
        repository.commits[Self.main]?["config.json"] = Data(#"{"alignment_heads": [[1, 2]]}"#.utf8)
        let server = try HubTestServer(repository)
        defer { server.stop() }
        try await store().installFromHub(Self.reference, environment: server.environment(cache: cache))
        #expect(server.resolvedFiles == ["config.json"])
        let directory = try #require(ModelStore(home: home).installedDirectory(for: "whisper-test"))
        #expect(try Data(contentsOf: directory.appendingPathComponent("config.json")) == repository.commits[Self.main]!["config.json"]!)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: directory.appendingPathComponent("model.bin").path)
                == cached("model.bin").path)
    }

    /// `AssetInventory`'s path: a module naming an `hf:` id is supported, and its installation request installs it.
    @Test func anAssetInstallationRequestInstallsAnHFModel() async throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let server = try HubTestServer(.whisper())
        defer { server.stop() }
        var store = store()
        store.hubEnvironment = server.environment(cache: cache)
        let library = AssetLibrary(store: store)
        let module = FakeModule(assetModelIDs: ["hf:acme/whisper-test"])
        #expect(await library.status(forModules: [module]) == .supported)
        let request = try #require(try library.assetInstallationRequest(supporting: [module]))
        try await request.downloadAndInstall()
        #expect(await AssetLibrary(store: ModelStore(home: home)).status(forModules: [module]) == .installed)
        #expect(ModelStore(home: home).installedDirectory(for: "whisper-test") != nil)
    }

    /// A catalog entry may name a Hub repository and leave its files to it; any other entry must list them.
    @Test func aCatalogEntryWithAHubSourceInstallsTheRepositorysFiles() async throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let repository = HubTestServer.Repository.whisper()
        let server = try HubTestServer(repository)
        defer { server.stop() }
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let url = root.appendingPathComponent("catalog.json")
        try Data("""
            {"models": [{"id": "hub-whisper", "family": "whisper", "languages": ["en"], "files": [],
                         "sources": [{"type": "hugging-face", "repository": "acme/whisper-test", "revision": "v2"}]}]}
            """.utf8).write(to: url)
        let catalog = try ModelCatalog(contentsOf: url)
        #expect(catalog.model("hub-whisper")?.sources == [.huggingFace(repository: "acme/whisper-test", revision: "v2")])
        let encoded = try JSONEncoder().encode(catalog)
        #expect(try JSONDecoder().decode(ModelCatalog.self, from: encoded) == catalog)

        var store = ModelStore(home: home, catalog: catalog)
        store.hubEnvironment = server.environment(cache: cache)
        let directory = try await store.install("hub-whisper")
        try expectInstalled(directory, repository: repository, commit: HubTestServer.Repository.v2Commit)
        #expect(store.installedDirectory(for: "hub-whisper") == directory)
        #expect(InstallManifest.read(from: directory)?.origin
                == .huggingFace(repository: "acme/whisper-test", revision: HubTestServer.Repository.v2Commit))
        // Another repository's install is not this entry's.
        let other = ModelStore(home: home, catalog: ModelCatalog(models: [CatalogModel(
            id: "hub-whisper", family: "whisper", languages: ["en"], files: [],
            sources: [.huggingFace(repository: "acme/other", revision: "main")])]))
        #expect(other.installedDirectory(for: "hub-whisper") == nil)

        let listless = CatalogModel(id: "m", family: "whisper", languages: ["en"], files: [],
                                    sources: [.url(files: [:])])
        #expect(listless.problem()?.contains("lists no files") == true)
        let badRepository = CatalogModel(id: "m", family: "whisper", languages: ["en"], files: [],
                                         sources: [.huggingFace(repository: "../etc", revision: "main")])
        #expect(badRepository.problem()?.contains("hugging-face source") == true)
    }
}

/// `hf:` references and the Hugging Face settings of the environment.
@Suite struct HubReferenceTests {
    @Test func referencesParse() throws {
        let plain = try HuggingFaceReference(parsing: "hf:Systran/faster-whisper-base")
        #expect(plain.owner == "Systran" && plain.name == "faster-whisper-base" && plain.revision == "main")
        #expect(plain.description == "hf:Systran/faster-whisper-base")
        let pr = try HuggingFaceReference(parsing: "hf:org.x/m_1.ct2@refs/pr/1")
        #expect(pr.revision == "refs/pr/1" && pr.encodedRevision == "refs%2Fpr%2F1")
        #expect(pr.description == "hf:org.x/m_1.ct2@refs/pr/1")
        let commit = String(repeating: "0f", count: 20)
        #expect(try HuggingFaceReference(parsing: "hf:a/b@\(commit)").isCommit)
        #expect(!plain.isCommit)
    }

    @Test(arguments: ["Systran/faster-whisper-base", "hf:", "hf:name", "hf:a/b/c", "hf:/b", "hf:a/", "hf:-a/b", "hf:a/b-",
                      "hf:a/.b", "hf:a/b.", "hf:a--x/b", "hf:a/b..c", "hf:a b/c", "hf:a/b@", "hf:a/b@..", "hf:a/b@x y",
                      "hf:a/b@/main", "hf:a/b@a//b", "hf:a/b@x\u{0}", "hf:" + String(repeating: "a", count: 97) + "/b"])
    func malformedReferencesAreRefused(text: String) {
        #expect {
            try HuggingFaceReference(parsing: text)
        } throws: { error in
            guard case .invalidHubReference = error as? ModelAssetError else { return false }
            let sentence = (error as? ModelAssetError)?.description ?? ""
            return sentence.contains("hf:OWNER/NAME") && !sentence.contains("\u{0}")
        }
    }

    @Test func theEnvironmentIsReadAsHuggingFaceHubReadsIt() throws {
        let root = try makeTemporaryDirectory("openspeech-hub-env")
        defer { try? FileManager.default.removeItem(at: root) }
        let defaults = HubEnvironment(["HOME": root.path])
        #expect(defaults.endpoint == "https://huggingface.co")
        #expect(defaults.token == nil && !defaults.isOffline)
        #expect(defaults.cacheDirectory.path == root.path + "/.cache/huggingface/hub")
        #expect(HubEnvironment(["HOME": root.path, "XDG_CACHE_HOME": root.path + "/xdg"]).cacheDirectory.path
                == root.path + "/xdg/huggingface/hub")

        let hfHome = root.appendingPathComponent("hf")
        try FileManager.default.createDirectory(at: hfHome, withIntermediateDirectories: true)
        try Data("  hf_from_file\n".utf8).write(to: hfHome.appendingPathComponent("token"))
        let fromHome = HubEnvironment(["HOME": root.path, "HF_HOME": hfHome.path, "HF_ENDPOINT": "http://mirror.test/hf//"])
        #expect(fromHome.token == "hf_from_file")
        #expect(fromHome.cacheDirectory.path == hfHome.path + "/hub")
        #expect(fromHome.endpoint == "http://mirror.test/hf")

        try Data("hf_other\n".utf8).write(to: root.appendingPathComponent("token-file"))
        let tokenPath = HubEnvironment(["HOME": root.path, "HF_HOME": hfHome.path,
                                        "HF_TOKEN_PATH": root.appendingPathComponent("token-file").path,
                                        "HF_HUB_CACHE": root.path + "/cache"])
        #expect(tokenPath.token == "hf_other")
        #expect(tokenPath.cacheDirectory.path == root.path + "/cache")
        #expect(HubEnvironment(["HOME": root.path, "HF_HOME": hfHome.path, "HF_TOKEN": " hf_env "]).token == "hf_env")
        #expect(HubEnvironment(["HOME": root.path, "HF_HOME": "~/hf"]).cacheDirectory.path == hfHome.path + "/hub")

        for (value, offline) in [("1", true), ("on", true), ("Yes", true), ("TRUE", true), ("0", false), ("no", false), ("", false)] {
            #expect(HubEnvironment(["HOME": root.path, "HF_HUB_OFFLINE": value]).isOffline == offline, "\(value)")
        }
    }

    @Test func aBadEndpointIsNamed() async throws {
        let root = try makeTemporaryDirectory("openspeech-hub-env")
        defer { try? FileManager.default.removeItem(at: root) }
        let environment = HubEnvironment(endpoint: "ftp://example.invalid", cacheDirectory: root)
        await #expect {
            try await ModelStore(home: root, catalog: .builtIn).installFromHub(
                try HuggingFaceReference(parsing: "hf:a/b"), environment: environment)
        } throws: { error in
            (error as? ModelAssetError) == .invalidHubEndpoint(endpoint: "ftp://example.invalid")
        }
    }

    /// git's own ids: `git hash-object` of an empty file and of "hello world\n".
    @Test func gitBlobIDsAreGits() throws {
        let root = try makeTemporaryDirectory("openspeech-hub-blob")
        defer { try? FileManager.default.removeItem(at: root) }
        let empty = root.appendingPathComponent("empty"), hello = root.appendingPathComponent("hello")
        try Data().write(to: empty)
        try Data("hello world\n".utf8).write(to: hello)
        #expect(try GitBlobID.of(empty) == "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391")
        #expect(try GitBlobID.of(hello) == "3b18e512dba79e4c8300dd08aeb37f8e728b8dad")
    }

    /// The API's answer is checked before anything is trusted.
    @Test(arguments: [#"{"sha": "abc", "siblings": []}"#,
                      #"{"sha": "\#(String(repeating: "a", count: 40))"}"#,
                      #"{"sha": "\#(String(repeating: "a", count: 40))", "siblings": [{"rfilename": "m", "size": -1}]}"#,
                      #"{"sha": "\#(String(repeating: "a", count: 40))", "siblings": [{"rfilename": "m"}]}"#,
                      #"{"sha": "\#(String(repeating: "a", count: 40))", "siblings": [{"rfilename": "m", "size": 1, "lfs": {"sha256": "x", "size": 1}}]}"#,
                      #"{"sha": "\#(String(repeating: "a", count: 40))", "siblings": [{"rfilename": "m", "size": 1}, {"rfilename": "m", "size": 1}]}"#,
                      "[1, 2]"])
    func nonsenseListingsAreRefused(json: String) {
        #expect {
            try HubListing(json: Data(json.utf8), url: "http://hub.test/api")
        } throws: { error in
            guard case .invalidHubResponse = error as? ModelAssetError else { return false }
            return true
        }
    }
}
