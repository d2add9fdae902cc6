import Foundation

/// The raw contents of a model directory's tokenizer files (`tokenizer.json` through `TokenizerJSONReader`).
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
        let file: TokenizerJSONReader.Contents
        do {
            file = try TokenizerJSONReader.read(data)
        } catch {
            throw WhisperTokenizerError.invalidFile("tokenizer.json", "\(error)")
        }
        let vocab = file.vocab ?? [:]
        let added = (file.addedTokens ?? []).map { ($0.content, $0.id) }
        // Ids index the tables built from them: each must lie among the ids the file defines, so that a damaged
        // id can neither trap nor make the tables outgrow the file.
        let limit = vocab.count + added.count
        for id in vocab.values where !(0..<limit).contains(id) {
            throw WhisperTokenizerError.invalidFile("tokenizer.json", "model.vocab holds the id \(id), outside 0..<\(limit)")
        }
        for (text, id) in added where !(0..<limit).contains(id) {
            throw WhisperTokenizerError.invalidFile("tokenizer.json", "added token \(text) has the id \(id), outside 0..<\(limit)")
        }
        encoderVocabulary = vocab
        merges = file.merges ?? []
        addedTokens = added
        vocabulary = try Self.readVocabulary(modelDirectory) ?? Self.vocabulary(encoderVocabulary, added)
    }

    /// CTranslate2's vocabulary file: one token per line (empty lines are tokens too) or a JSON list.
    static func readVocabulary(_ directory: URL) throws -> [String]? {
        if let data = try? Data(contentsOf: directory.appendingPathComponent("vocabulary.txt")) {
            var lines = data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
            if lines.last?.isEmpty == true { lines.removeLast() }
            return lines.map { String(decoding: $0, as: UTF8.self) }
        }
        if let data = try? Data(contentsOf: directory.appendingPathComponent("vocabulary.json")) {
            do {
                return try JSONDecoder().decode([String].self, from: data)
            } catch {
                throw WhisperTokenizerError.invalidFile("vocabulary.json", "not a list of strings: \(reason(error))")
            }
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

    /// A decoding error in one line: where in the file, and what was wrong.
    static func reason(_ error: any Error) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }
            return keys.isEmpty ? "" : " at \(keys.joined(separator: "."))"
        }
        switch error {
        case DecodingError.dataCorrupted(let context): return "invalid JSON\(path(context))"
        case DecodingError.keyNotFound(let key, let context): return "no \(key.stringValue)\(path(context))"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            return "\(context.debugDescription)\(path(context))"
        default: return "\(error)"
        }
    }
}
