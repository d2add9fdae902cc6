import Foundation
import Synchronization
import Testing
import TestSupport
@testable import SpeechAssets

/// Real installs from the Python package index through the machine's pip.
@Suite struct PythonIndexInstallTests {
    @Test func installsTinyEnglishAndSileroIntoAFreshHome() async throws {
        let home = try makeTemporaryDirectory("openspeech-home")
        defer { try? FileManager.default.removeItem(at: home) }
        let store = ModelStore(home: home, catalog: .builtIn)
        #expect(store.installedDirectory(for: "whisper-tiny.en") == nil)

        let reports = ProgressLog()
        let tiny = try await store.install("whisper-tiny.en") { completed, total in reports.add(completed, total) }
        #expect(tiny == home.appendingPathComponent("models/whisper-tiny.en", isDirectory: true).standardizedFileURL)
        #expect(store.installedDirectory(for: "whisper-tiny.en") == tiny)
        for file in try #require(ModelCatalog.builtIn.model("whisper-tiny.en")).files {
            #expect(try FileDigest(of: tiny.appendingPathComponent(file.name)).sha256 == file.sha256)
        }
        let last = try #require(reports.last)
        #expect(last.0 == last.1 && last.1 == ModelCatalog.builtIn.model("whisper-tiny.en")?.size)
        #expect(reports.isMonotonic)

        let vad = try await store.install("silero-vad")
        #expect(FileManager.default.fileExists(atPath: vad.appendingPathComponent("silero_vad_16k.safetensors").path))
        #expect(FileManager.default.fileExists(atPath: vad.appendingPathComponent("silero_vad.onnx").path))
        // Nothing left behind: no staging folder, no wheels.
        let leftovers = (try? FileManager.default.contentsOfDirectory(atPath: store.stagingRoot.path)) ?? []
        #expect(leftovers.isEmpty)
        #expect(Set(store.installedModelIDs) == ["whisper-tiny.en", "silero-vad"])
    }

    @Test func sharedTestModelsInstallOnceAndAreVerified() async throws {
        let first = try await TestModels.directory(for: "silero-vad")
        let again = try await TestModels.directory(for: "silero-vad")
        #expect(first == again)
        #expect(first.path.hasSuffix(".build/test-home/models/silero-vad"))
    }

    @Test func missingPythonIsAClearError() async throws {
        let home = try makeTemporaryDirectory("openspeech-home")
        defer { try? FileManager.default.removeItem(at: home) }
        var store = ModelStore(home: home, catalog: .builtIn)
        store.pip.python = "/nonexistent/python3"
        await #expect {
            try await store.install("silero-vad")
        } throws: { error in
            guard let error = error as? ModelAssetError, case .pythonNotFound = error else { return false }
            return error.description.contains("apt-get install python3")
        }
        #expect(store.installedDirectory(for: "silero-vad") == nil)
    }
}

/// Collects progress reports from any thread.
final class ProgressLog: Sendable {
    private let values = Mutex<[(Int64, Int64)]>([])
    func add(_ completed: Int64, _ total: Int64) { values.withLock { $0.append((completed, total)) } }
    var last: (Int64, Int64)? { values.withLock { $0.last } }
    var count: Int { values.withLock { $0.count } }
    var isMonotonic: Bool {
        values.withLock { list in zip(list, list.dropFirst()).allSatisfy { $0.0 <= $1.0 } }
    }
}
