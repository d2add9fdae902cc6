import Foundation

/// A corpus folder: `manifest.tsv` (tab-separated, header line, no quoting) and `wav16k/<id>.wav`.
struct CorpusManifest {
    struct Item {
        var id: String
        var subset: String
        var language: String
        var transcript: String
    }

    let directory: URL
    let items: [Item]

    init(directory: URL) throws {
        self.directory = directory
        let text = try String(contentsOf: directory.appendingPathComponent("manifest.tsv"), encoding: .utf8)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: true).map {
            $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        }
        guard !lines.isEmpty else { throw BenchError("\(directory.path)/manifest.tsv is empty") }
        let header = lines.removeFirst()
        func column(_ name: String) throws -> Int {
            guard let index = header.firstIndex(of: name) else { throw BenchError("manifest.tsv has no \(name) column") }
            return index
        }
        let id = try column("id"), subset = try column("subset"), language = try column("language")
        let transcript = try column("transcript")
        items = lines.filter { $0.count == header.count }.map {
            Item(id: $0[id], subset: $0[subset], language: $0[language], transcript: $0[transcript])
        }
    }

    func wav(_ item: Item) -> URL { directory.appendingPathComponent("wav16k/\(item.id).wav") }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
