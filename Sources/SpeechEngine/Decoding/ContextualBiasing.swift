/// Token sequences of phrases in a prefix tree, flattened: node 0 is the root, each node's children are a sorted
/// run of `childTokens` / `childNodes` from `childStart[node]` to `childStart[node + 1]`.
public struct TokenTrie: Sendable, Equatable {
    private(set) var childStart: [Int32] = [0, 0]
    private(set) var childTokens: [Int32] = []
    private(set) var childNodes: [Int32] = []
    /// Tokens from the root to each node.
    private(set) var depth: [Int32] = [0]
    /// Whether a phrase ends at each node.
    private(set) var terminal: [Bool] = [false]

    public init(_ sequences: [[Int]]) {
        var children: [[Int: Int]] = [[:]]
        var depth: [Int32] = [0], terminal = [false]
        for sequence in sequences where !sequence.isEmpty {
            var node = 0
            for token in sequence {
                if let next = children[node][token] {
                    node = next
                } else {
                    children.append([:])
                    depth.append(depth[node] + 1)
                    terminal.append(false)
                    children[node][token] = children.count - 1
                    node = children.count - 1
                }
            }
            terminal[node] = true
        }
        var start: [Int32] = [0], tokens: [Int32] = [], nodes: [Int32] = []
        for map in children {
            for (token, node) in map.sorted(by: { $0.key < $1.key }) {
                tokens.append(Int32(token))
                nodes.append(Int32(node))
            }
            start.append(Int32(tokens.count))
        }
        childStart = start
        childTokens = tokens
        childNodes = nodes
        self.depth = depth
        self.terminal = terminal
    }

    public var nodeCount: Int { depth.count }
    public var isEmpty: Bool { childTokens.isEmpty }
    public func depth(of node: Int) -> Int { Int(depth[node]) }
    public func isTerminal(_ node: Int) -> Bool { terminal[node] }

    /// The child of `node` reached by `token`, nil if none (binary search among its children).
    @inline(__always) public func child(of node: Int, token: Int) -> Int? {
        var low = Int(childStart[node]), high = Int(childStart[node + 1])
        while low < high {
            let mid = (low + high) >> 1
            let value = Int(childTokens[mid])
            if value == token { return Int(childNodes[mid]) }
            if value < token { low = mid + 1 } else { high = mid }
        }
        return nil
    }

    /// The index range of `node`'s children in `childTokens`.
    func children(of node: Int) -> Range<Int> { Int(childStart[node])..<Int(childStart[node + 1]) }
}

/// Contextual biasing by shallow fusion over a token trie (after Le et al., Interspeech 2021): a hypothesis whose
/// latest tokens are a phrase prefix gets `weight` added to the log-probability of each token that continues the
/// phrase, every token that starts a phrase gets `weight` too, and a token that leaves a phrase unfinished takes back
/// the bonus the prefix collected — so only completed phrases keep a bonus (`weight` per token).
///
/// The state is found again from the hypothesis's tokens at each step (no per-hypothesis bookkeeping, hence works
/// alike for greedy decoding, sampling and beam search). Phrase tokens without a leading space (a phrase at the very
/// start of the text) only start a phrase at the start of the text or after a special or timestamp token.
public struct ContextualBiasing: LogitsProcessor, Equatable {
    public let trie: TokenTrie
    public let weight: Float
    /// Tokens from here on (end of text, special tokens, timestamps) mark a boundary: after them a phrase may start
    /// with a token that has no leading space.
    let firstSpecial: Int
    /// For each child of the root (in trie order), whether its token begins with a space (it may start anywhere).
    let startsAnywhere: [Bool]
    /// The root's children's tokens that begin with a space (they start a phrase anywhere), and the others (they
    /// start one only at a boundary): the tokens every step boosts, as flat lists.
    let spacedStarts: [Int32], boundaryStarts: [Int32]

    /// `phrases` become token sequences through `encode`: each with and without a leading space, as written, with
    /// its first letter capitalized and with every word capitalized. `isSpaced(token)` tells a token that begins
    /// with a space.
    public init(phrases: [String], weight: Float, firstSpecial: Int, encode: (String) -> [Int],
                isSpaced: (Int) -> Bool) {
        var sequences = Set<[Int]>()
        for phrase in phrases {
            let text = phrase.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            guard !text.isEmpty else { continue }
            for variant in Set([text, Self.capitalizingFirst(text), Self.capitalizingWords(text)]) {
                for spelled in [" " + variant, variant] {
                    let tokens = encode(spelled)
                    if !tokens.isEmpty, tokens.allSatisfy({ $0 >= 0 && $0 < firstSpecial }) { sequences.insert(tokens) }
                }
            }
        }
        let trie = TokenTrie(sequences.sorted { $0.lexicographicallyPrecedes($1) })
        self.trie = trie
        self.weight = weight
        self.firstSpecial = firstSpecial
        let anywhere = trie.children(of: 0).map { isSpaced(Int(trie.childTokens[$0])) }
        startsAnywhere = anywhere
        spacedStarts = trie.children(of: 0).filter { anywhere[$0] }.map { trie.childTokens[$0] }
        boundaryStarts = trie.children(of: 0).filter { !anywhere[$0] }.map { trie.childTokens[$0] }
    }

    static func capitalizingFirst(_ text: String) -> String {
        guard let first = text.first else { return text }
        return first.uppercased() + text.dropFirst()
    }

    static func capitalizingWords(_ text: String) -> String {
        text.split(separator: " ").map { capitalizingFirst(String($0)) }.joined(separator: " ")
    }

    /// The trie node a hypothesis stands at after `sampled` (0: inside no phrase).
    func node(after sampled: ArraySlice<Int>) -> Int {
        var node = 0
        var previous = -1
        for token in sampled {
            node = next(from: node, token: token, previous: previous)
            previous = token
        }
        return node
    }

    @inline(__always) private func next(from node: Int, token: Int, previous: Int) -> Int {
        if node != 0, let child = trie.child(of: node, token: token) { return child }
        return startingNode(token, previous: previous) ?? 0
    }

    /// The node reached by starting a phrase with `token` after `previous` (-1: nothing before), if it starts one.
    @inline(__always) private func startingNode(_ token: Int, previous: Int) -> Int? {
        var low = Int(trie.childStart[0]), high = Int(trie.childStart[1])
        while low < high {
            let mid = (low + high) >> 1
            let value = Int(trie.childTokens[mid])
            if value == token {
                return startsAnywhere[mid] || previous < 0 || previous >= firstSpecial ? Int(trie.childNodes[mid]) : nil
            }
            if value < token { low = mid + 1 } else { high = mid }
        }
        return nil
    }

    /// The amount taken back from a hypothesis at `node` that leaves it (0 at the root or a complete phrase).
    @inline(__always) private func takeBack(at node: Int) -> Float {
        node == 0 || trie.isTerminal(node) ? 0 : Float(trie.depth(of: node)) * weight
    }

    /// What choosing `token` at `node` (after `previous`) adds to the score.
    func bonus(at node: Int, token: Int, previous: Int) -> Float {
        if node != 0, trie.child(of: node, token: token) != nil { return weight }
        return -takeBack(at: node) + (startingNode(token, previous: previous) != nil ? weight : 0)
    }

    /// The total bonus of the hypothesis that generated `tokens`: `weight` per token of the completed phrases
    /// (a phrase left unfinished, by the end of text too, gave its bonus back).
    public func netBonus(_ tokens: ArraySlice<Int>) -> Float {
        var node = 0, previous = -1
        var total: Float = 0
        for token in tokens {
            total += bonus(at: node, token: token, previous: previous)
            node = next(from: node, token: token, previous: previous)
            previous = token
        }
        return total
    }

    func apply(_ row: UnsafeMutablePointer<Float>, count: Int, sampled: ArraySlice<Int>) {
        guard !trie.isEmpty else { return }
        let node = node(after: sampled)
        let previous = sampled.last ?? -1
        let back = takeBack(at: node)
        if back > 0 {
            for i in 0..<count { row[i] -= back }
        }
        // Every token that starts a phrase here gets `weight` (tokens are below `firstSpecial`, so inside the row).
        let limit = Int32(min(count, firstSpecial))
        func boost(_ starts: [Int32]) {
            starts.withUnsafeBufferPointer { tokens in
                for token in tokens where token < limit { row[Int(token)] += weight }
            }
        }
        boost(spacedStarts)
        if previous < 0 || previous >= firstSpecial { boost(boundaryStarts) }
        guard node != 0 else { return }
        trie.childTokens.withUnsafeBufferPointer { tokens in
            for k in trie.children(of: node) {
                let token = Int(tokens[k])
                guard token < count else { continue }
                // A continuation gets `weight`, whatever else the token would have had.
                let started = startingNode(token, previous: previous) != nil ? weight : 0
                row[token] += back + weight - started
            }
        }
    }
}
