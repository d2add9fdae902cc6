import HeapModule

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

    /// A pair that could merge: its rank, and the symbols (by first byte position) it joins, each with the version it
    /// had when the pair was seen (a symbol's version changes when it merges, so an outdated pair is recognized).
    private struct Candidate: Comparable {
        let rank: Int32
        let left: Int32
        let leftVersion: Int32
        let right: Int32
        let rightVersion: Int32

        /// Best rank first, leftmost on ties: the order in which merges apply.
        static func < (a: Candidate, b: Candidate) -> Bool {
            a.rank != b.rank ? a.rank < b.rank : a.left < b.left
        }

        static func == (a: Candidate, b: Candidate) -> Bool {
            a.rank == b.rank && a.left == b.left
        }
    }

    /// Encodes one pre-tokenized piece: start from its bytes and repeatedly apply the best-ranked merge (leftmost on
    /// ties) until none applies; appends the ids to `output`. The candidate pairs wait in a heap and the symbols form a
    /// linked list, so a piece of n bytes costs O(n log n), whatever its content (a naive rescan per merge is
    /// quadratic: a 64 KB word without spaces took a minute).
    func encode(_ bytes: some Collection<UInt8>, into output: inout [Int]) {
        var tokens = bytes.map { byteTokens[Int($0)] }
        let count = tokens.count
        guard count > 1 else {
            output.append(contentsOf: tokens.lazy.map { Int($0) })
            return
        }
        // Symbol i covers positions i..<next[i]; a merged-away symbol has version -1.
        var next = (0..<count).map { Int32($0 + 1) }
        var previous = (0..<count).map { Int32($0 - 1) }
        var version = [Int32](repeating: 0, count: count)
        var candidates = Heap<Candidate>()
        func consider(_ left: Int32, _ right: Int32) {
            guard left >= 0, right < count,
                  let merge = merges[Self.key(tokens[Int(left)], tokens[Int(right)])] else { return }
            candidates.insert(Candidate(rank: merge.rank, left: left, leftVersion: version[Int(left)],
                                        right: right, rightVersion: version[Int(right)]))
        }
        for index in 0..<(count - 1) { consider(Int32(index), Int32(index + 1)) }
        while let best = candidates.popMin() {
            let left = Int(best.left), right = Int(best.right)
            guard version[left] == best.leftVersion, version[right] == best.rightVersion else { continue }
            guard let merge = merges[Self.key(tokens[left], tokens[right])] else { continue }
            tokens[left] = merge.merged
            version[left] += 1
            version[right] = -1
            let after = next[right]
            next[left] = after
            if after < count { previous[Int(after)] = Int32(left) }
            consider(previous[left], Int32(left))
            consider(Int32(left), after)
        }
        var index = 0
        while index < count {
            output.append(Int(tokens[index]))
            index = Int(next[index])
        }
    }
}
