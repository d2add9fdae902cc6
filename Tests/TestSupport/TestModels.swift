import Foundation
import SpeechAssets

/// Real models for tests, installed once through `ModelStore` into `<repo>/.build/test-home`, so repeated runs and
/// CI download each model once and nothing is stored outside the clone.
public enum TestModels {
    /// `<repo root>/.build/test-home`, found from this file's path (`<root>/Tests/TestSupport/TestModels.swift`).
    public static let home: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent(".build/test-home", isDirectory: true)

    /// The store the tests share.
    public static var store: ModelStore { ModelStore(home: home, catalog: ModelCatalog.builtIn) }

    /// The installed folder of `modelID` (`whisper-tiny.en`, `whisper-base`, `silero-vad`...), installing it first
    /// if needed. Concurrent calls, also from parallel test processes, share one install.
    public static func directory(for modelID: String) async throws -> URL {
        try await store.install(modelID)
    }

    /// Makes `home` a model home holding only `modelIDs`: links to the test store's installs (installed first if
    /// needed), so a process or store pointed at it finds the others missing.
    public static func link(_ modelIDs: [String], into home: URL) async throws {
        let models = home.appendingPathComponent("models", isDirectory: true)
        try FileManager.default.createDirectory(at: models, withIntermediateDirectories: true)
        for id in modelIDs where !FileManager.default.fileExists(atPath: models.appendingPathComponent(id).path) {
            try FileManager.default.createSymbolicLink(at: models.appendingPathComponent(id),
                                                       withDestinationURL: try await directory(for: id))
        }
    }
}
