import Foundation

/// Whisper model directories for tests: `$OPENSPEECH_TEST_MODELS/<name>` (default `/tmp/models/<name>`).
enum TestModels {
    struct Missing: Error, CustomStringConvertible {
        let path: String
        var description: String { "Model directory \(path) not found; set OPENSPEECH_TEST_MODELS to a folder holding whisper-tiny.en and whisper-base" }
    }

    static let root = URL(fileURLWithPath: ProcessInfo.processInfo.environment["OPENSPEECH_TEST_MODELS"] ?? "/tmp/models")

    /// The directory of model `name` (e.g. `"whisper-tiny.en"`); throws if it has no `model.bin`/`tokenizer.json`.
    static func directory(_ name: String) throws -> URL {
        let url = root.appendingPathComponent(name)
        guard FileManager.default.fileExists(atPath: url.appendingPathComponent("tokenizer.json").path) else {
            throw Missing(path: url.path)
        }
        return url
    }
}
