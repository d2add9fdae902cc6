import Foundation
import Synchronization
import Testing
import TestSupport
@testable import SpeechAssets

/// Installs from HTTP URLs, against a loopback server started and stopped by each test.
@Suite struct URLInstallTests {
    let home: URL
    init() throws { home = try makeTemporaryDirectory("openspeech-url") }

    @Test func installsFromURLsAndVerifies() async throws {
        defer { try? FileManager.default.removeItem(at: home) }
        let fixture = TestModelFixture()
        let server = try LoopbackHTTPServer(files: fixture.served)
        defer { server.stop() }
        let store = ModelStore(home: home, catalog: fixture.catalog(server: server))
        let log = ProgressLog()
        let directory = try await store.install(fixture.id) { log.add($0, $1) }
        #expect(try Data(contentsOf: directory.appendingPathComponent("model.bin")) == fixture.files["model.bin"])
        #expect(store.installedDirectory(for: fixture.id) == directory)
        #expect(log.last.map { $0.0 == fixture.size && $0.1 == fixture.size } == true)
        #expect(log.isMonotonic)
        #expect(leftovers(in: store).allSatisfy { $0.hasPrefix("models/") })
        // Installed: a second install makes no request.
        let before = server.requests.count
        try await store.install(fixture.id)
        #expect(server.requests.count == before)
    }

    @Test func resumesAfterTheConnectionIsCutMidFile() async throws {
        defer { try? FileManager.default.removeItem(at: home) }
        let fixture = TestModelFixture()
        let cut = 1_000_000
        let server = try LoopbackHTTPServer(files: fixture.served, behaviour: .init(cutFirstResponseAfter: cut))
        defer { server.stop() }
        let store = ModelStore(home: home, catalog: fixture.catalog(server: server))
        let directory = try await store.install(fixture.id)
        #expect(try Data(contentsOf: directory.appendingPathComponent("model.bin")) == fixture.files["model.bin"])
        let modelRequests = server.requests.filter { $0.path.hasSuffix("/model.bin") }
        #expect(modelRequests.count == 2)
        #expect(modelRequests.first?.range == nil)
        #expect(modelRequests.last?.range == "bytes=\(cut)-")
    }

    @Test func wrongChecksumIsRejectedAndNothingIsLeft() async throws {
        defer { try? FileManager.default.removeItem(at: home) }
        let fixture = TestModelFixture()
        let server = try LoopbackHTTPServer(files: fixture.served)
        defer { server.stop() }
        let store = ModelStore(home: home, catalog: fixture.catalog(server: server, corrupting: "model.bin"))
        await #expect {
            try await store.install(fixture.id)
        } throws: { error in
            guard case let .checksumMismatch(model, file, _, _) = error as? ModelAssetError else { return false }
            return model == fixture.id && file == "model.bin"
        }
        #expect(store.installedDirectory(for: fixture.id) == nil)
        #expect(leftovers(in: store) == [])
    }

    @Test func notFoundIsAClearError() async throws {
        defer { try? FileManager.default.removeItem(at: home) }
        let fixture = TestModelFixture()
        let server = try LoopbackHTTPServer(files: [:])
        defer { server.stop() }
        let store = ModelStore(home: home, catalog: fixture.catalog(server: server))
        await #expect {
            try await store.install(fixture.id)
        } throws: { error in
            guard let error = error as? ModelAssetError, case .httpStatus(_, 404) = error else { return false }
            return error.description.contains("not found")
        }
        #expect(store.installedDirectory(for: fixture.id) == nil)
        #expect(!leftovers(in: store).contains { $0.hasPrefix("models/") || $0.hasPrefix("tmp/") })
    }

    @Test func cancellingASlowDownloadStopsPromptlyAndTheNextInstallResumes() async throws {
        defer { try? FileManager.default.removeItem(at: home) }
        let fixture = TestModelFixture()
        // The server holds still after 200 KB: the install is mid-file when cancelled, however busy the machine.
        let server = try LoopbackHTTPServer(
            files: fixture.served, behaviour: .init(bytesPer10ms: 8 * 1024, stallAfterTotalBytes: 200_000))
        defer { server.stop() }
        let store = ModelStore(home: home, catalog: fixture.catalog(server: server))
        let task = Task { try await store.install(fixture.id) }
        let deadline = Date().addingTimeInterval(120)
        while server.bodyBytesSent < 200_000 && Date() < deadline { try await Task.sleep(nanoseconds: 20_000_000) }
        let cancelledAt = Date()
        task.cancel()
        let result = await task.result
        // The server never sends the rest, so ending at all means the cancellation worked; the bound only
        // catches a hang (generous: engine suites beside this test can hold both cooperative threads for a minute).
        #expect(Date().timeIntervalSince(cancelledAt) < 120)
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(store.installedDirectory(for: fixture.id) == nil)
        #expect(!leftovers(in: store).contains { $0.hasPrefix("models/") || $0.hasPrefix("tmp/") })

        server.setBehaviour(.init())
        let directory = try await store.install(fixture.id)
        #expect(try Data(contentsOf: directory.appendingPathComponent("model.bin")) == fixture.files["model.bin"])
        let ranges = server.requests.filter { $0.path.hasSuffix("/model.bin") }.compactMap(\.range)
        #expect(ranges.count == 1, "the install after cancellation resumes with a Range request")
    }

    @Test func concurrentInstallsOfOneModelAreMerged() async throws {
        defer { try? FileManager.default.removeItem(at: home) }
        let fixture = TestModelFixture()
        let server = try LoopbackHTTPServer(files: fixture.served, behaviour: .init(bytesPer10ms: 256 * 1024))
        defer { server.stop() }
        let store = ModelStore(home: home, catalog: fixture.catalog(server: server))
        let logA = ProgressLog(), logB = ProgressLog()
        async let a = store.install(fixture.id) { logA.add($0, $1) }
        async let b = store.install(fixture.id) { logB.add($0, $1) }
        let (first, second) = try await (a, b)
        #expect(first == second)
        #expect(server.requests.filter { $0.path.hasSuffix("/model.bin") }.count == 1)
        #expect(logA.count > 0 && logB.count > 0)
    }

    @Test func installsFromALocalDirectory() async throws {
        defer { try? FileManager.default.removeItem(at: home) }
        let fixture = TestModelFixture()
        let source = home.appendingPathComponent("source")
        try fixture.write(to: source)
        let catalog = ModelCatalog(models: [CatalogModel(
            id: fixture.id, family: "whisper", languages: ["en"], files: fixture.catalogFiles(),
            sources: [.directory(path: source.path)])])
        let store = ModelStore(home: home.appendingPathComponent("home"), catalog: catalog)
        let directory = try await store.install(fixture.id)
        #expect(try Data(contentsOf: directory.appendingPathComponent("model.bin")) == fixture.files["model.bin"])
    }

    @Test func unknownModelNamesTheKnownOnes() async throws {
        defer { try? FileManager.default.removeItem(at: home) }
        let store = ModelStore(home: home, catalog: .builtIn)
        await #expect {
            try await store.install("whisper-huge")
        } throws: { error in
            (error as? ModelAssetError)?.description.contains("whisper-tiny.en") == true
        }
    }
}
