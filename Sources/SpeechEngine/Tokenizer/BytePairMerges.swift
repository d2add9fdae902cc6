/// The merge rules of a byte-level BPE model, over token ids: which adjacent pair merges first and
/// into which token.
struct BytePairMerges: Sendable {
    private struct Merge: Sendable {
        let rank: Int32
        let merged: Int32
    }

    /// Token id of each single byte.
    private let byteTokens: [Int32]
    private let merges: [UInt64: Merge]

    /// `vocabulary` maps alphabet spellings to ids; `rules` are the merge pairs in priority order.
    init(vocabulary: [String: Int], rules: [(String, String)]) throws {
        var byteTokens = [Int32](repeating: -1, count: 256)
        for byte in 0..<256 {
            guard let id = vocabulary[ByteLevelAlphabet.spelling(of: [UInt8(byte)])] else {
                throw WhisperTokenizerError.invalidFile("tokenizer.json", "no token for byte \(byte)")
            }
            byteTokens[byte] = Int32(id)
        }
        var merges: [UInt64: Merge] = [:]
        merges.reserveCapacity(rules.count)
        for (rank, rule) in rules.enumerated() {
            guard let left = vocabulary[rule.0], let right = vocabulary[rule.1],
                  let merged = vocabulary[rule.0 + rule.1] else {
                throw WhisperTokenizerError.invalidFile("tokenizer.json", "merge \"\(rule.0) \(rule.1)\" names an unknown token")
            }
            let key = Self.key(Int32(left), Int32(right))
            if merges[key] == nil { merges[key] = Merge(rank: Int32(rank), merged: Int32(merged)) }
        }
        self.byteTokens = byteTokens
        self.merges = merges
    }

    private static func key(_ left: Int32, _ right: Int32) -> UInt64 {
        UInt64(UInt32(bitPattern: left)) << 32 | UInt64(UInt32(bitPattern: right))
    }

    /// Encodes one pre-tokenized piece: start from its bytes and repeatedly apply the best-ranked
    /// merge (leftmost on ties) until none applies; appends the ids to `output`.
    func encode(_ bytes: some Collection<UInt8>, into output: inout [Int]) {
        var symbols = bytes.map { byteTokens[Int($0)] }
        while symbols.count > 1 {
            var best: (index: Int, merge: Merge)?
            for index in 0..<(symbols.count - 1) {
                if let merge = merges[Self.key(symbols[index], symbols[index + 1])],
                   best == nil || merge.rank < best!.merge.rank {
                    best = (index, merge)
                }
            }
            guard let best else { break }
            symbols[best.index] = best.merge.merged
            symbols.remove(at: best.index + 1)
        }
        output.append(contentsOf: symbols.lazy.map { Int($0) })
    }
}
