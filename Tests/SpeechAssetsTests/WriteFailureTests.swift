import Foundation
import Testing
import TestSupport
@testable import SpeechAssets

/// A file layer that fails with `ENOSPC` once `limit` bytes have been written in all, like a full disk.
final class FullDiskFileWriting: FileWriting {
    let limit: Int
    private let written = Counter()
    init(limit: Int) { self.limit = limit }

    func openForWriting(_ url: URL, append: Bool) throws -> any FileSink {
        let real = try PosixFileWriting().openForWriting(url, append: append)
        return LimitedSink(real: real, path: url.path, limit: limit, counter: written)
    }

    final class Counter: @unchecked Sendable {  // Safe: only touched under `lock`.
        private let lock = NSLock()
        private var value = 0
        func add(_ bytes: Int) -> Int { lock.lock(); defer { lock.unlock() }; value += bytes; return value }
    }

    final class LimitedSink: FileSink {
        let real: any FileSink, path: String, limit: Int, counter: Counter
        init(real: any FileSink, path: String, limit: Int, counter: Counter) {
            (self.real, self.path, self.limit, self.counter) = (real, path, limit, counter)
        }
        func write(_ bytes: UnsafeRawBufferPointer) throws {
            if counter.add(bytes.count) > limit { throw FileWriteError(path: path, code: ENOSPC) }
            try real.write(bytes)
        }
        func close() throws { try real.close() }
    }
}

@Suite struct WriteFailureTests {
    @Test func injectedDiskFullGivesInsufficientResourcesAndNoPartialModel() async throws {
        let home = try makeTemporaryDirectory("openspeech-full")
        defer { try? FileManager.default.removeItem(at: home) }
        let fixture = TestModelFixture()
        let server = try LoopbackHTTPServer(files: fixture.served)
        defer { server.stop() }
        var store = ModelStore(home: home, catalog: fixture.catalog(server: server))
        store.fileWriting = FullDiskFileWriting(limit: 1_000_000)
        await #expect {
            try await store.install(fixture.id)
        } throws: { error in
            guard let error = error as? SFSpeechError else { return false }
            return error.code == .insufficientResources && error.message.contains("disk space")
        }
        #expect(store.installedDirectory(for: fixture.id) == nil)
        #expect(leftovers(in: store) == [])
    }

    @Test func realFullFilesystemWhereOneCanBeMounted() async throws {
        let mountPoint = try makeTemporaryDirectory("openspeech-tmpfs")
        defer { try? FileManager.default.removeItem(at: mountPoint) }
        let mounted = (try? await runCommand("mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", mountPoint.path], check: false))?.status == 0
        defer { if mounted { _ = try? runCommand("umount", [mountPoint.path], check: false) } }
        let fixture = TestModelFixture()  // 3 MB: does not fit in 1 MB
        let source = try makeTemporaryDirectory("openspeech-source")
        defer { try? FileManager.default.removeItem(at: source) }
        try fixture.write(to: source)
        let catalog = ModelCatalog(models: [CatalogModel(
            id: fixture.id, family: "whisper", languages: ["en"], files: fixture.catalogFiles(),
            sources: [.directory(path: source.path)])])
        var store = ModelStore(home: mountPoint, catalog: catalog)
        print("realFullFilesystemWhereOneCanBeMounted: \(mounted ? "1 MB tmpfs mounted" : "no tmpfs here; injected failure")")
        if !mounted {
            // No tmpfs in this sandbox: the same failure injected at the file layer.
            store.fileWriting = FullDiskFileWriting(limit: 1_000_000)
        }
        await #expect {
            try await store.install(fixture.id)
        } throws: { error in
            (error as? SFSpeechError)?.code == .insufficientResources
        }
        #expect(store.installedDirectory(for: fixture.id) == nil)
        #expect(leftovers(in: store) == [])
    }
}
