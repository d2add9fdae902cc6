import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
import TestSupport
@testable import SpeechAssets

/// Installs and reservations across processes, through the built `openspeech` tool.
@Suite struct MultiProcessTests {
    let root: URL
    init() throws { root = try makeTemporaryDirectory("openspeech-processes") }

    /// Environment pointing the tool at `home` and at a catalog file holding `catalog`.
    func environment(home: URL, catalog: ModelCatalog? = nil) throws -> [String: String] {
        var environment = ["OPENSPEECH_HOME": home.path]
        if let catalog {
            let file = root.appendingPathComponent("catalog-\(UUID()).json")
            try JSONEncoder().encode(catalog).write(to: file)
            environment["OPENSPEECH_CATALOG"] = file.path
        }
        return environment
    }

    @Test func killedInstallLeavesNothingInstalledAndTheNextInstallSucceeds() async throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let fixture = TestModelFixture()
        // The server holds the download still after 200 KB, so the install cannot finish before the kill, however
        // slowly this test gets scheduled on a busy machine.
        let server = try LoopbackHTTPServer(
            files: fixture.served, behaviour: .init(bytesPer10ms: 16 * 1024, stallAfterTotalBytes: 200_000))
        defer { server.stop() }
        let home = root.appendingPathComponent("home")
        let catalog = fixture.catalog(server: server)
        let process = try OpenSpeechExecutable.start(
            ["models", "install", fixture.id, "--quiet"], environment: try environment(home: home, catalog: catalog),
            output: root.appendingPathComponent("killed.log"))
        let deadline = Date().addingTimeInterval(120)
        while server.bodyBytesSent < 200_000 && Date() < deadline && process.isRunning {
            try await Task.sleep(nanoseconds: 10_000_000)
        }
        #expect(process.isRunning, "the install ended before it could be killed")
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)

        let store = ModelStore(home: home, catalog: catalog)
        #expect(store.installedDirectory(for: fixture.id) == nil)
        #expect(!FileManager.default.fileExists(atPath: try store.directory(for: fixture.id).path))

        server.setBehaviour(.init())
        let directory = try await store.install(fixture.id)
        #expect(try Data(contentsOf: directory.appendingPathComponent("model.bin")) == fixture.files["model.bin"])
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: store.stagingRoot.path)) ?? []).isEmpty,
                "the killed process's staging folder is cleaned up")
    }

    @Test func twoProcessesInstallingTogetherEndWithOneValidCopy() async throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let fixture = TestModelFixture()
        let server = try LoopbackHTTPServer(files: fixture.served, behaviour: .init(bytesPer10ms: 128 * 1024))
        defer { server.stop() }
        let home = root.appendingPathComponent("home")
        let catalog = fixture.catalog(server: server)
        let environment = try environment(home: home, catalog: catalog)
        async let first = OpenSpeechExecutable.run(["models", "install", fixture.id, "--quiet"], environment: environment)
        async let second = OpenSpeechExecutable.run(["models", "install", fixture.id, "--quiet"], environment: environment)
        let (a, b) = try await (first, second)
        #expect(a.status == 0, "\(a.output)")
        #expect(b.status == 0, "\(b.output)")
        let store = ModelStore(home: home, catalog: catalog)
        let directory = try #require(store.installedDirectory(for: fixture.id))
        #expect(try FileDigest(of: directory.appendingPathComponent("model.bin")).sha256
                == fixture.catalogFiles().first { $0.name == "model.bin" }?.sha256)
        #expect(server.requests.filter { $0.path.hasSuffix("/model.bin") }.count == 1, "the second waited, then found it installed")
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: store.stagingRoot.path)) ?? []).isEmpty)
    }

    @Test func reservationsPersistAcrossProcesses() async throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let home = root.appendingPathComponent("home")
        let library = AssetLibrary(store: ModelStore(home: home, catalog: .builtIn), maximumReservedLocales: 2)
        try library.reserve(locale: Locale(identifier: "en-GB"))
        var environment = try environment(home: home)
        environment["OPENSPEECH_MAX_RESERVED_LOCALES"] = "2"

        let status = try await OpenSpeechExecutable.run(["models", "status", "--locale", "fr-FR"], environment: environment)
        #expect(status.status == 0)
        #expect(status.output.contains("fr-FR: supported (whisper-base)"))
        #expect(status.output.contains("reserved locales (1 of 2): en-GB"))

        let reserve = try await OpenSpeechExecutable.run(["models", "reserve", "fr-FR"], environment: environment)
        #expect(reserve.status == 0, "\(reserve.output)")
        #expect(library.reservedLocales.map { $0.identifier(.bcp47) } == ["en-GB", "fr-FR"])

        let tooMany = try await OpenSpeechExecutable.run(["models", "reserve", "de-DE"], environment: environment)
        #expect(tooMany.status != 0)
        #expect(tooMany.output.contains("release"))
        #expect(tooMany.output.split(separator: "\n").count == 1)

        #expect(library.release(reservedLocale: Locale(identifier: "en-GB")))
        let again = try await OpenSpeechExecutable.run(["models", "reserve", "de-DE"], environment: environment)
        #expect(again.status == 0, "\(again.output)")
    }

    @Test func commandLineListsInstallsAndRemoves() async throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let fixture = TestModelFixture(id: "cli-model", modelBytes: 200_000)
        let source = root.appendingPathComponent("cli-model")
        try fixture.write(to: source)
        try Data("a\nb\n".utf8).write(to: source.appendingPathComponent("vocabulary.txt"))
        let environment = try environment(home: root.appendingPathComponent("home"))
        let add = try await OpenSpeechExecutable.run(["models", "add", source.path, "--languages", "en"], environment: environment)
        #expect(add.status == 0, "\(add.output)")
        let list = try await OpenSpeechExecutable.run(["models", "list"], environment: environment)
        let row = list.output.split(separator: "\n").first { $0.hasPrefix("cli-model ") }
        #expect(row?.hasSuffix("installed") == true && row?.contains("not installed") == false)
        #expect(list.output.contains("whisper-tiny.en"))
        let remove = try await OpenSpeechExecutable.run(["models", "remove", "cli-model"], environment: environment)
        #expect(remove.status == 0)
        let removeAgain = try await OpenSpeechExecutable.run(["models", "remove", "cli-model"], environment: environment)
        #expect(removeAgain.status != 0 && removeAgain.output.contains("not installed"))
        let unknown = try await OpenSpeechExecutable.run(["models", "install", "no-such-model"], environment: environment)
        #expect(unknown.status != 0 && unknown.output.contains("not in the catalog"))
        let notAModel = try await OpenSpeechExecutable.run(["models", "add", root.path], environment: environment)
        #expect(notAModel.status != 0 && notAModel.output.contains("model.bin is missing"))
    }

    /// The attack of issue 40: `$OPENSPEECH_CATALOG` naming a model `../../../x`. The tool says the catalog is not
    /// valid, in one line, exits non-zero, and writes nothing (the home sits three folders down in `root`).
    @Test func commandLineRefusesACatalogClimbingOutOfTheHome() async throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let fixture = TestModelFixture(id: "../../../x", modelBytes: 1000)
        let source = root.appendingPathComponent("source")
        try fixture.write(to: source)
        let home = root.appendingPathComponent("a/b/home")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        let environment = try environment(home: home, catalog: ModelCatalog(models: [CatalogModel(
            id: fixture.id, family: "whisper", languages: ["en"], files: fixture.catalogFiles(),
            sources: [.directory(path: source.path)])]))
        let before = try FileManager.default.subpathsOfDirectory(atPath: root.path).sorted()
        let install = try await OpenSpeechExecutable.run(["models", "install", fixture.id], environment: environment)
        #expect(install.status != 0)
        #expect(install.output.split(separator: "\n").count == 1, "\(install.output)")
        #expect(install.output.contains("is not valid (model id '../../../x' is not a folder name"), "\(install.output)")
        #expect(try FileManager.default.subpathsOfDirectory(atPath: root.path).sorted() == before)
    }

    /// `models add` of a folder holding a FIFO returns at once with one line naming it.
    @Test func commandLineAddRefusesAFIFOInOneLine() async throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let folder = root.appendingPathComponent("fifo-model")
        try TestModelFixture(modelBytes: 1000).write(to: folder)
        try Data("a\n".utf8).write(to: folder.appendingPathComponent("vocabulary.txt"))
        let fifo = folder.appendingPathComponent("weights.extra")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        let environment = try environment(home: root.appendingPathComponent("home"))
        let add = try await OpenSpeechExecutable.run(["models", "add", folder.path, "--id", "fifo-model"],
                                                     environment: environment, timeout: 120)
        #expect(add.status != 0)
        #expect(add.output == "openspeech: Cannot read \(fifo.path): it is a FIFO (named pipe), not a regular file; "
                + "a model folder may hold only files and links to files.\n")
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("home/user-models.json").path))
    }
}
