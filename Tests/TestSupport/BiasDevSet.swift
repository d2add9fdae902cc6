import Foundation

/// The custom-vocabulary dev set `../shared/bias` (LibriSpeech test-other utterances with per-utterance lists of
/// rare words plus distractors; its README gives the metrics) and its scorer, `score.py`.
public enum BiasDevSet {
    public struct Utterance: Sendable {
        public let id: String
        public let audio: URL
        public let reference: String
        public let rareWords: [String]
        /// The utterance's rare words plus 100 distractors, sorted.
        public let list100: [String]
        /// The N=100 list without the utterance's own rare words.
        public var distractors: [String] { list100.filter { !rareWords.contains($0) } }
    }

    /// WER, U-WER (words not in the list) and B-WER (listed words), in percent.
    public struct Scores: Decodable, Sendable, CustomStringConvertible {
        public struct Rate: Decodable, Sendable { public let error_rate: Double }
        public let WER: Rate
        public let U_WER: Rate
        public let B_WER: Rate
        enum CodingKeys: String, CodingKey { case WER, U_WER = "U-WER", B_WER = "B-WER" }
        public var description: String {
            String(format: "WER %.2f U-WER %.2f B-WER %.2f", WER.error_rate, U_WER.error_rate, B_WER.error_rate)
        }
    }

    /// The set's folder: `$OPENSPEECH_BIAS_SET` if set, else `shared/bias` found by walking up from this file.
    public static let directory: URL = {
        if let path = ProcessInfo.processInfo.environment["OPENSPEECH_BIAS_SET"] { return URL(fileURLWithPath: path) }
        var dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while dir.path != "/" {
            let candidate = dir.appendingPathComponent("shared/bias")
            if FileManager.default.fileExists(atPath: candidate.appendingPathComponent("manifest.tsv").path) {
                return candidate
            }
            dir.deleteLastPathComponent()
        }
        return URL(fileURLWithPath: "../shared/bias")
    }()

    public struct MissingColumn: Error, CustomStringConvertible {
        public let name: String
        public var description: String { "the dev set's manifest.tsv has no column \(name)" }
    }

    /// Every utterance of the manifest, in its order.
    public static func utterances() throws -> [Utterance] {
        let text = try String(contentsOf: directory.appendingPathComponent("manifest.tsv"), encoding: .utf8)
        var rows = text.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
        let header = rows.removeFirst()
        func column(_ name: String) throws -> Int {
            guard let index = header.firstIndex(of: name) else { throw MissingColumn(name: name) }
            return index
        }
        let id = try column("id"), audio = try column("audio"), reference = try column("text"),
            rare = try column("rare_words"), list = try column("biasing_100")
        let words = { (s: String) in s.split(separator: " ").map(String.init) }
        return rows.map { Utterance(id: $0[id], audio: directory.appendingPathComponent($0[audio]), reference: $0[reference],
                                    rareWords: words($0[rare]), list100: words($0[list])) }
    }

    /// Scores hypotheses (utterance id → text) with the set's `score.py`.
    public static func score(_ hypotheses: [(id: String, text: String)]) throws -> Scores {
        let lines = hypotheses.map { id, text in
            "\(id)\t\(text.replacingOccurrences(of: "\t", with: " ").replacingOccurrences(of: "\n", with: " "))\n"
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("bias-\(UUID().uuidString).tsv")
        try lines.joined().write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try runCommand("python3", [directory.appendingPathComponent("score.py").path, "--manifest",
                                                directory.appendingPathComponent("manifest.tsv").path,
                                                "--hyp", file.path, "--json"])
        return try JSONDecoder().decode(Scores.self, from: result.stdout)
    }
}
