import Foundation

/// The shared speech corpus (`../shared/corpus` beside the repository): manifest rows and file locations.
public struct CorpusItem: Sendable, Hashable {
    public let id: String
    public let subset: String
    public let durationSeconds: Double
    public let language: String
    public let transcript: String
    /// The original recording, in its own container and format.
    public let originalURL: URL
    /// The same audio as 16 kHz mono 16-bit WAV.
    public let wav16kURL: URL
}

public enum Corpus {
    /// The corpus folder: `$OPENSPEECH_CORPUS` if set, else `shared/corpus` found by walking up from this file.
    public static let directory: URL = {
        if let path = ProcessInfo.processInfo.environment["OPENSPEECH_CORPUS"] {
            return URL(fileURLWithPath: path)
        }
        var dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while dir.path != "/" {
            let candidate = dir.appendingPathComponent("shared/corpus")
            if FileManager.default.fileExists(atPath: candidate.appendingPathComponent("manifest.tsv").path) {
                return candidate
            }
            dir.deleteLastPathComponent()
        }
        return URL(fileURLWithPath: "../shared/corpus")
    }()

    /// Every row of `manifest.tsv` (tab-separated, no quoting).
    public static let items: [CorpusItem] = {
        let manifest = directory.appendingPathComponent("manifest.tsv")
        guard let text = try? String(contentsOf: manifest, encoding: .utf8) else { return [] }
        let audio = directory.appendingPathComponent("audio")
        let originals = (try? FileManager.default.contentsOfDirectory(atPath: audio.path)) ?? []
        var result: [CorpusItem] = []
        for line in text.split(separator: "\n").dropFirst() {
            let columns = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard columns.count >= 8 else { continue }
            let id = columns[0]
            let original = originals.first { ($0 as NSString).deletingPathExtension == id } ?? "\(id).wav"
            result.append(CorpusItem(
                id: id, subset: columns[1], durationSeconds: Double(columns[2]) ?? 0, language: columns[3],
                transcript: columns[7], originalURL: audio.appendingPathComponent(original),
                wav16kURL: directory.appendingPathComponent("wav16k/\(id).wav")))
        }
        return result
    }()

    public static func item(_ id: String) -> CorpusItem? { items.first { $0.id == id } }
}
