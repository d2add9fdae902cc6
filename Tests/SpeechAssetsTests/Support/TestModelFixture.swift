import Crypto
import Foundation
@testable import SpeechAssets

/// A small synthetic model (random bytes) with a catalog entry pointing at a loopback server or a folder.
struct TestModelFixture {
    let id: String
    let files: [String: Data]

    init(id: String = "test-model", modelBytes: Int = 3 * 1024 * 1024) {
        self.id = id
        var generator = SystemRandomNumberGenerator()
        var words = [UInt64](repeating: 0, count: (modelBytes + 7) / 8)
        for index in words.indices { words[index] = generator.next() }
        let model = words.withUnsafeBytes { Data($0.prefix(modelBytes)) }
        files = ["model.bin": model, "config.json": Data(#"{"alignment_heads": []}"#.utf8)]
    }

    var size: Int64 { Int64(files.values.reduce(0) { $0 + $1.count }) }

    func catalogFiles(corrupting name: String? = nil) -> [CatalogModel.File] {
        files.keys.sorted().map { name0 in
            let data = files[name0]!
            var digest = SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
            if name0 == name { digest = String(repeating: "0", count: 64) }
            return CatalogModel.File(name: name0, size: Int64(data.count), sha256: digest)
        }
    }

    /// The catalog with this model served by `server` under `/<id>/<file>`.
    func catalog(server: LoopbackHTTPServer, corrupting: String? = nil) -> ModelCatalog {
        let urls = Dictionary(uniqueKeysWithValues: files.keys.map { ($0, server.url("/\(id)/\($0)")) })
        return ModelCatalog(models: [CatalogModel(
            id: id, family: "whisper", languages: ["en"], files: catalogFiles(corrupting: corrupting),
            sources: [.url(files: urls)])])
    }

    /// Server paths → contents.
    var served: [String: Data] {
        Dictionary(uniqueKeysWithValues: files.map { ("/\(id)/\($0.key)", $0.value) })
    }

    /// Writes the files into `directory`.
    func write(to directory: URL) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for (name, data) in files { try data.write(to: directory.appendingPathComponent(name)) }
    }
}

/// Everything under a store's home that could hold model bytes: models, staging and partial downloads.
func leftovers(in store: ModelStore) -> [String] {
    var found: [String] = []
    for root in [store.modelsDirectory, store.stagingRoot, store.downloadsRoot] {
        let items = (try? FileManager.default.subpathsOfDirectory(atPath: root.path)) ?? []
        found += items.map { "\(root.lastPathComponent)/\($0)" }
    }
    return found
}
