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
}
