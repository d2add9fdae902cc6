import Foundation
import SpeechEngine

/// The byte-pair encoder fuzzed against its definition: a tokenizer with merge rules over a few letters (overlapping,
/// chained, competing), any text round-trips through encode and decode, and a run of those letters (one piece)
/// encodes to what the rules' naive application (best rank first, leftmost on ties, rescanning after each merge)
/// gives.
enum BytePairFuzz {
    /// The merge rules in priority order, over the letters `a b l o`.
    static let rules: [(String, String)] = [
        ("a", "a"), ("l", "o"), ("aa", "aa"), ("a", "b"), ("lo", "l"), ("b", "a"), ("o", "o"), ("ab", "a"),
        ("aaaa", "a"), ("lol", "o"), ("ba", "b"), ("aa", "b"), ("b", "b"), ("o", "l"), ("a", "l"), ("l", "l"),
    ]
    static let letters: [UInt8] = Array("ablo".utf8)

    /// The tokenizer, written once to a folder of its own.
    static let tokenizer: WhisperTokenizer = {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("openspeech-fuzz-bpe-\(getpid())")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try! Data(MinimalTokenizer.json(merges: rules).utf8).write(to: folder.appendingPathComponent("tokenizer.json"))
        defer { try? FileManager.default.removeItem(at: folder) }
        return try! WhisperTokenizer(modelDirectory: folder)
    }()

    static func run(_ bytes: Data) throws -> String {
        // Any text: decode(encode(text)) is the text.
        let text = String(decoding: bytes, as: UTF8.self)
        let ids = tokenizer.encode(text)
        guard tokenizer.decode(ids) == text || text.contains("<|") else {
            fatalError("byte-pair encoding does not round-trip: \(text.debugDescription) -> \(ids)")
        }
        // A run of the rules' letters, the bytes chosen by the input: the naive definition's ids.
        let run = bytes.prefix(512).map { letters[Int($0) % letters.count] }
        let word = String(decoding: run, as: UTF8.self)
        let expected = naive(run)
        let encoded = tokenizer.encode(word).map { tokenizer.decode([$0]) }
        guard encoded == expected else {
            fatalError("byte-pair encoding differs from the rules' naive order on \(word): \(encoded) vs \(expected)")
        }
        return "\(ids.count) tokens"
    }

    /// The rules applied by definition: at each step the best-ranked adjacent pair, leftmost on ties.
    static func naive(_ bytes: [UInt8]) -> [String] {
        var symbols = bytes.map { String(UnicodeScalar($0)) }
        var ranks: [String: Int] = [:]
        for (rank, rule) in rules.enumerated() where ranks["\(rule.0) \(rule.1)"] == nil { ranks["\(rule.0) \(rule.1)"] = rank }
        while symbols.count > 1 {
            var best: (index: Int, rank: Int)?
            for index in 0..<(symbols.count - 1) {
                if let rank = ranks["\(symbols[index]) \(symbols[index + 1])"], best == nil || rank < best!.rank {
                    best = (index, rank)
                }
            }
            guard let best else { break }
            symbols[best.index] += symbols[best.index + 1]
            symbols.remove(at: best.index + 1)
        }
        return symbols
    }
}
