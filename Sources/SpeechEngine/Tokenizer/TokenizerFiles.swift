import Foundation

/// The raw contents of a model directory's tokenizer files.
struct TokenizerFiles {
    /// Token spellings by id, from `vocabulary.txt`, `vocabulary.json` or else `tokenizer.json`.
    var vocabulary: [String]
    /// `tokenizer.json`'s BPE vocabulary (spelling → id).
    var encoderVocabulary: [String: Int]
    /// `tokenizer.json`'s merge rules in priority order.
    var merges: [(String, String)]
    /// `tokenizer.json`'s added tokens (text, id).
    var addedTokens: [(String, Int)]

    init(modelDirectory: URL) throws {
        let tokenizerURL = modelDirectory.appendingPathComponent("tokenizer.json")
        guard let data = try? Data(contentsOf: tokenizerURL) else {
            throw WhisperTokenizerError.missingFile("tokenizer.json")
        }
        guard let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let model = root["model"] as? [String: Any],
              let vocab = model["vocab"] as? [String: Any],
              let rawMerges = model["merges"] as? [Any] else {
            throw WhisperTokenizerError.invalidFile("tokenizer.json", "not a BPE tokenizer")
        }
        var encoderVocabulary: [String: Int] = [:]
        encoderVocabulary.reserveCapacity(vocab.count)
        for (text, id) in vocab {
            guard let id = (id as? NSNumber)?.intValue else { continue }
            encoderVocabulary[text] = id
        }
        var merges: [(String, String)] = []
        merges.reserveCapacity(rawMerges.count)
        for merge in rawMerges {
            // Older files write "a b", newer ones ["a", "b"].
            if let pair = merge as? String, let space = pair.firstIndex(of: " ") {
                merges.append((String(pair[..<space]), String(pair[pair.index(after: space)...])))
            } else if let pair = merge as? [String], pair.count == 2 {
                merges.append((pair[0], pair[1]))
            } else {
                throw WhisperTokenizerError.invalidFile("tokenizer.json", "unreadable merge \(merge)")
            }
        }
        var added: [(String, Int)] = []
        for entry in root["added_tokens"] as? [[String: Any]] ?? [] {
            if let text = entry["content"] as? String, let id = (entry["id"] as? NSNumber)?.intValue {
                added.append((text, id))
            }
        }
        self.encoderVocabulary = encoderVocabulary
        self.merges = merges
        self.addedTokens = added
        vocabulary = try Self.readVocabulary(modelDirectory) ?? Self.vocabulary(encoderVocabulary, added)
    }

    /// CTranslate2's vocabulary file: one token per line (empty lines are tokens too) or a JSON list.
    private static func readVocabulary(_ directory: URL) throws -> [String]? {
        if let data = try? Data(contentsOf: directory.appendingPathComponent("vocabulary.txt")) {
            var lines = data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
            if lines.last?.isEmpty == true { lines.removeLast() }
            return lines.map { String(decoding: $0, as: UTF8.self) }
        }
        if let data = try? Data(contentsOf: directory.appendingPathComponent("vocabulary.json")) {
            guard let list = try? JSONSerialization.jsonObject(with: data) as? [String] else {
                throw WhisperTokenizerError.invalidFile("vocabulary.json", "not a list of strings")
            }
            return list
        }
        return nil
    }

    private static func vocabulary(_ encoder: [String: Int], _ added: [(String, Int)]) -> [String] {
        let count = max(encoder.values.max() ?? -1, added.map(\.1).max() ?? -1) + 1
        var list = [String](repeating: "", count: count)
        for (text, id) in encoder { list[id] = text }
        for (text, id) in added { list[id] = text }
        return list
    }
}
