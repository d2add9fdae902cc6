import Foundation
import Synchronization
import Testing
import TestSupport
@testable import SpeechAssets
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `ModelStore.addUserModel` (`openspeech models add DIR`): folders of links such as a Hugging Face cache snapshot,
/// entries that are not files, and what a failed add leaves behind.
@Suite struct UserModelTests {
    let root: URL
    init() throws { root = try makeTemporaryDirectory("openspeech-add") }

    /// A small synthetic model folder: random `model.bin`, `config.json`, a two-line `vocabulary.txt`.
    func modelFolder(_ name: String, modelBytes: Int = 200_000) throws -> URL {
        let folder = root.appendingPathComponent(name, isDirectory: true)
        try TestModelFixture(id: name, modelBytes: modelBytes).write(to: folder)
        try Data("a\nb\n".utf8).write(to: folder.appendingPathComponent("vocabulary.txt"))
        return folder
    }

    /// A Hugging Face hub cache holding `files` as `repository`: each file's bytes in `blobs/<sha256>`, and
    /// `snapshots/<revision>/<name>` a relative link `../../blobs/<sha256>`. Returns the snapshot folder.
    func huggingFaceSnapshot(_ repository: String, files: [(name: String, source: URL)]) throws -> URL {
        let repo = root.appendingPathComponent("hub/\(repository)", isDirectory: true)
        let blobs = repo.appendingPathComponent("blobs", isDirectory: true)
        let snapshot = repo.appendingPathComponent("snapshots/0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c", isDirectory: true)
        for folder in [blobs, snapshot] { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
        for (name, source) in files {
            let sha = try FileDigest(of: source).sha256
            let blob = blobs.appendingPathComponent(sha)
            if !FileManager.default.fileExists(atPath: blob.path) { try FileManager.default.copyItem(at: source, to: blob) }
            try FileManager.default.createSymbolicLink(atPath: snapshot.appendingPathComponent(name).path,
                                                       withDestinationPath: "../../blobs/\(sha)")
        }
        return snapshot
    }

    /// Checks `installed` holds `files` as regular files (not links) of the recorded size and hash.
    func expectRegularCopies(of files: [CatalogModel.File], in installed: URL) throws {
        for file in files {
            let copy = installed.appendingPathComponent(file.name)
            let type = try FileManager.default.attributesOfItem(atPath: copy.path)[.type] as? FileAttributeType
            #expect(type == .typeRegular, "\(file.name) is \(String(describing: type))")
            #expect(try FileDigest(of: copy) == FileDigest(size: file.size, sha256: file.sha256), "\(file.name)")
        }
    }

    @Test func snapshotFolderOfLinksAddsWithTheTargetsSizesAndHashes() async throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let source = try modelFolder("src")
        let names = ["config.json", "model.bin", "vocabulary.txt"]
        let snapshot = try huggingFaceSnapshot("models--acme--tiny-test", files: names.map { ($0, source.appendingPathComponent($0)) })
        let home = root.appendingPathComponent("home")
        let model = try await ModelStore(home: home, catalog: .builtIn).addUserModel(from: snapshot, languages: ["en"])
        #expect(model.id == "tiny-test", "a snapshot's default id is its repository's name")
        #expect(model.files.map(\.name) == names)
        for file in model.files {
            #expect(try FileDigest(of: source.appendingPathComponent(file.name)) == FileDigest(size: file.size, sha256: file.sha256))
        }
        // Recorded: a store reading the home's user catalog finds it installed.
        let installed = try #require(ModelStore(home: home).installedDirectory(for: "tiny-test"))
        try expectRegularCopies(of: model.files, in: installed)
    }

    /// The real tiny.en model laid out as the Hugging Face cache keeps `Systran/faster-whisper-tiny.en`: the copy
    /// installed is byte for byte the catalog's tiny.en, so it transcribes as that model does.
    @Test func huggingFaceSnapshotOfTinyEnglishAdds() async throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let tiny = try await TestModels.directory(for: "whisper-tiny.en")
        let catalogEntry = try #require(ModelCatalog.builtIn.model("whisper-tiny.en"))
        let snapshot = try huggingFaceSnapshot("models--Systran--faster-whisper-tiny.en",
                                               files: catalogEntry.files.map { ($0.name, tiny.appendingPathComponent($0.name)) })
        let home = root.appendingPathComponent("home")
        let model = try await ModelStore(home: home, catalog: .builtIn).addUserModel(from: snapshot)
        #expect(model.id == "faster-whisper-tiny.en")
        #expect(Set(model.files) == Set(catalogEntry.files), "the size and SHA-256 of what the links lead to")
        #expect(model.languages == ["en"], "an English-only vocabulary")
        let installed = try #require(ModelStore(home: home).installedDirectory(for: model.id))
        try expectRegularCopies(of: catalogEntry.files, in: installed)
    }

    /// A FIFO is refused by its type, never opened (opening one for reading waits for a writer), by `models add`
    /// and by a `directory` source alike.
    @Test func fifoInTheFolderIsRefusedAtOnce() async throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let folder = try modelFolder("with-fifo")
        let fifo = folder.appendingPathComponent("model.bin")
        try FileManager.default.removeItem(at: fifo)
        #expect(mkfifo(fifo.path, 0o600) == 0)
        let home = root.appendingPathComponent("home")
        let store = ModelStore(home: home, catalog: .builtIn)
        let isFIFORefusal: (any Error) -> Bool = { error in
            guard case let .unreadableFile(path, reason) = error as? ModelAssetError else { return false }
            return path == fifo.path && reason.contains("FIFO")
        }

        let added = try await runReleasingFIFO(unblocking: fifo) {
            try await store.addUserModel(from: folder, languages: ["en"])
        }
        #expect(added.error.map(isFIFORefusal) == true, "\(String(describing: added.error))")
        #expect(!FileManager.default.fileExists(atPath: ModelCatalog.userCatalogURL(home: home).path))
        #expect(leftovers(in: store) == [])

        let source = ModelStore(home: home, catalog: ModelCatalog(models: [CatalogModel(
            id: "fifo-source", family: "whisper", languages: ["en"],
            files: [.init(name: "model.bin", size: 1, sha256: String(repeating: "0", count: 64))],
            sources: [.directory(path: folder.path)])]))
        let installed = try await runReleasingFIFO(unblocking: fifo) { try await source.install("fifo-source") }
        #expect(installed.error.map(isFIFORefusal) == true, "\(String(describing: installed.error))")
        #expect(leftovers(in: source) == [])
    }

    @Test(arguments: [("link-to-folder", "it is a link to a folder, not a regular file"),
                      ("folder", "it is a folder, not a regular file"),
                      ("dangling-link", "which does not exist"),
                      ("link-loop", "leads back to itself")])
    func entriesThatAreNotFilesAreRefusedByName(entry: String, expected: String) async throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let folder = try modelFolder("model-\(entry)")
        let odd = folder.appendingPathComponent("extra")
        switch entry {
        case "link-to-folder": try FileManager.default.createSymbolicLink(atPath: odd.path, withDestinationPath: "..")
        case "folder": try FileManager.default.createDirectory(at: odd, withIntermediateDirectories: false)
        case "dangling-link": try FileManager.default.createSymbolicLink(atPath: odd.path, withDestinationPath: "../blobs/missing")
        default: try FileManager.default.createSymbolicLink(atPath: odd.path, withDestinationPath: "extra")
        }
        let store = ModelStore(home: root.appendingPathComponent("home"), catalog: .builtIn)
        await #expect {
            try await store.addUserModel(from: folder, languages: ["en"])
        } throws: { error in
            guard case let .unreadableFile(path, reason) = error as? ModelAssetError else { return false }
            return path == odd.path && reason.contains(expected)
                && (error as? ModelAssetError)?.description.contains("\n") == false
        }
        #expect(leftovers(in: store) == [])
    }

    /// A failed install records nothing: the user catalog keeps its bytes and `models/` only what it held.
    @Test func failedAddLeavesTheUserCatalogUnchanged() async throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let home = root.appendingPathComponent("home")
        let store = ModelStore(home: home, catalog: .builtIn)
        try await store.addUserModel(from: try modelFolder("first"), languages: ["en"])
        let userCatalog = ModelCatalog.userCatalogURL(home: home)
        let before = try Data(contentsOf: userCatalog)

        var full = store
        full.fileWriting = FullDiskFileWriting(limit: 100_000)
        await #expect(throws: SFSpeechError.self) {
            try await full.addUserModel(from: try modelFolder("second"), languages: ["en"])
        }
        #expect(try Data(contentsOf: userCatalog) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.modelsDirectory.path) == ["first"])
        #expect(leftovers(in: store).allSatisfy { $0.hasPrefix("models/first") })
        #expect(ModelStore(home: home).catalog.model("second") == nil)
    }

    /// A damaged user catalog is reported, not overwritten, and nothing is installed.
    @Test func damagedUserCatalogIsNotOverwritten() async throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let home = root.appendingPathComponent("home")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        let userCatalog = ModelCatalog.userCatalogURL(home: home)
        try Data("{".utf8).write(to: userCatalog)
        let store = ModelStore(home: home, catalog: .builtIn)
        await #expect {
            try await store.addUserModel(from: try modelFolder("m"), languages: ["en"])
        } throws: { error in
            guard case let .invalidCatalog(path, _) = error as? ModelAssetError else { return false }
            return path == userCatalog.path
        }
        #expect(try Data(contentsOf: userCatalog) == Data("{".utf8))
        #expect(leftovers(in: store) == [])
    }

    /// Adding again under the same id replaces the copy and the entry.
    @Test func addingAgainReplacesTheModel() async throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let home = root.appendingPathComponent("home")
        let folder = try modelFolder("again")
        try await ModelStore(home: home, catalog: .builtIn).addUserModel(from: folder, languages: ["en"])
        let changed = Data("other weights".utf8)
        try changed.write(to: folder.appendingPathComponent("model.bin"))
        try await ModelStore(home: home).addUserModel(from: folder, languages: ["en"])
        let installed = try #require(ModelStore(home: home).installedDirectory(for: "again"))
        #expect(try Data(contentsOf: installed.appendingPathComponent("model.bin")) == changed)
    }

    /// Runs `body` and returns its result. A body still running 60 s after it started is released from the FIFO
    /// `fifo` (a writer opens it) so the test reports instead of hanging: a body that had opened the FIFO then reads
    /// an empty file and does not end with the FIFO's refusal, which is what the callers check. How long the body
    /// took is not itself checked: beside the engine-heavy suites a 2-vCPU machine's cooperative threads can be
    /// busy for over a minute (seen once in a full run), and a refusal late for that reason is still a refusal.
    func runReleasingFIFO<T: Sendable>(unblocking fifo: URL,
                                       _ body: @escaping @Sendable () async throws -> T) async throws -> Result<T, any Error> {
        let clock = RunClock()
        let task = Task {
            clock.start()
            defer { clock.finish() }
            return try await body()
        }
        while clock.startedAt == nil { try await Task.sleep(nanoseconds: 10_000_000) }
        // Opening the FIFO to read it would block until a writer comes: after 60 s one comes.
        let deadline = try #require(clock.startedAt).addingTimeInterval(60)
        while !clock.isFinished && Date() < deadline { try await Task.sleep(nanoseconds: 10_000_000) }
        if !clock.isFinished {
            let fd = open(fifo.path, O_WRONLY | O_NONBLOCK)
            if fd >= 0 { _ = close(fd) }
        }
        return await task.result
    }

    /// When the body started and whether it ended.
    final class RunClock: Sendable {
        private let state = Mutex<(started: Date?, finished: Bool)>((nil, false))
        func start() { state.withLock { $0.started = Date() } }
        func finish() { state.withLock { $0.finished = true } }
        var startedAt: Date? { state.withLock { $0.started } }
        var isFinished: Bool { state.withLock { $0.finished } }
    }
}

fileprivate extension Result {
    var error: Failure? {
        if case let .failure(error) = self { return error }
        return nil
    }
}
