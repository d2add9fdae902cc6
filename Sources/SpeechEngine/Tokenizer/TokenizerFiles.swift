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
        let root: MinimalJSON
        do {
            root = try MinimalJSON.parse([UInt8](data))
        } catch {
            throw WhisperTokenizerError.invalidFile("tokenizer.json", "\(error)")
        }
        guard let vocab = root["model"]?["vocab"]?.members, let rawMerges = root["model"]?["merges"]?.array else {
            throw WhisperTokenizerError.invalidFile("tokenizer.json", "not a BPE tokenizer")
        }
        var encoderVocabulary: [String: Int] = [:]
        encoderVocabulary.reserveCapacity(vocab.count)
        for (text, id) in vocab {
            guard let id = id.int else { continue }
            encoderVocabulary[text] = id
        }
        var merges: [(String, String)] = []
        merges.reserveCapacity(rawMerges.count)
        for merge in rawMerges {
            // Older files write "a b", newer ones ["a", "b"].
            if let pair = merge.string, let space = pair.utf8.firstIndex(of: UInt8(ascii: " ")) {
                merges.append((String(pair[..<space]), String(pair[pair.utf8.index(after: space)...])))
            } else if let pair = merge.array, pair.count == 2, let left = pair[0].string, let right = pair[1].string {
                merges.append((left, right))
            } else {
                throw WhisperTokenizerError.invalidFile("tokenizer.json", "unreadable merge \(merge)")
            }
        }
        var added: [(String, Int)] = []
        for entry in root["added_tokens"]?.array ?? [] {
            if let text = entry["content"]?.string, let id = entry["id"]?.int {
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
            guard let list = try? MinimalJSON.parse([UInt8](data)).array?.map({ $0.string ?? "" }) else {
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
