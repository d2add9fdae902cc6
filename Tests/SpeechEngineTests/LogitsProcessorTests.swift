import Testing
@testable import SpeechEngine

/// The logits processors and the contextual-biasing trie on hand-made rows (no model): a toy vocabulary where
/// 0..<eot are text tokens, `eot` = 10, `noTimestamps` = 11, timestamps from 12 to 19.
@Suite("Logits processors")
struct LogitsProcessorTests {
    static let eot = 10, noTimestamps = 11, timestampBegin = 12, count = 20

    static func apply(_ processor: some LogitsProcessor, _ values: [Float], sampled: [Int]) -> [Float] {
        var row = values
        row.withUnsafeMutableBufferPointer { processor.apply($0.baseAddress!, count: $0.count, sampled: sampled[...]) }
        return row
    }

    static var rules: TimestampRules {
        TimestampRules(eot: eot, noTimestamps: noTimestamps, timestampBegin: timestampBegin,
                       maxInitialTimestamp: timestampBegin + 2)
    }

    @Test("Suppression masks its tokens at every step; at-begin only at the first")
    func suppression() {
        let flat = [Float](repeating: 0, count: Self.count)
        let row = Self.apply(SuppressTokens(ids: [1, 3, 99]), flat, sampled: [5, 6])
        #expect(row[1] == -.infinity && row[3] == -.infinity && row[2] == 0)
        #expect(Self.apply(SuppressAtBegin(ids: [0, 10]), flat, sampled: [])[10] == -.infinity)
        #expect(Self.apply(SuppressAtBegin(ids: [0, 10]), flat, sampled: [12]) == flat)
    }

    @Test("Timestamp rules: first a timestamp up to the maximum, pairs, increasing after text, forced by mass")
    func timestamps() {
        var values = [Float](repeating: 0, count: Self.count)
        values[3] = 5
        let first = Self.apply(Self.rules, values, sampled: [])
        #expect(first[0..<12].allSatisfy { $0 == -.infinity })
        #expect(first[12...14].allSatisfy { $0 == 0 } && first[15...].allSatisfy { $0 == -.infinity })
        // After text then a lone timestamp: only timestamps or the end.
        var ending = values
        ending[Self.eot] = 5
        let lone = Self.apply(Self.rules, ending, sampled: [12, 3, 15])
        #expect(lone[0..<10].allSatisfy { $0 == -.infinity } && lone[10] == 5)
        #expect(lone[12..<15].allSatisfy { $0 == -.infinity } && lone[15] == 0)
        // Two timestamps in a row: no timestamp next.
        let pair = Self.apply(Self.rules, values, sampled: [12, 3, 15, 15])
        #expect(pair[12...].allSatisfy { $0 == -.infinity } && pair[3] == 5)
        // After text, a timestamp after the last one only (the segment it closes has a length).
        let closing = Self.apply(Self.rules, values, sampled: [12, 3, 15, 15, 4])
        #expect(closing[12...15].allSatisfy { $0 == -.infinity } && closing[16...].allSatisfy { $0 == 0 })
        #expect(closing[3] == 5)
        // Timestamps together likelier than the best text token: a timestamp is forced.
        var heavy = [Float](repeating: 0, count: Self.count)
        heavy[3] = 1
        for t in 12..<20 { heavy[t] = 0.5 }
        let forced = Self.apply(Self.rules, heavy, sampled: [12, 3])
        #expect(forced[0..<12].allSatisfy { $0 == -.infinity } && forced[12] == -.infinity && forced[13] == 0.5)
        #expect(Self.apply(Self.rules, values, sampled: [12, 3])[3] == 5)
    }

    @Test("The trie finds phrases' tokens and shares prefixes")
    func trie() {
        let trie = TokenTrie([[1, 2, 3], [1, 2], [4], []])
        #expect(trie.nodeCount == 5)
        let a = trie.child(of: 0, token: 1)!, ab = trie.child(of: a, token: 2)!
        #expect(trie.isTerminal(ab) && !trie.isTerminal(a) && trie.depth(of: ab) == 2)
        #expect(trie.child(of: ab, token: 3) != nil && trie.child(of: 0, token: 2) == nil)
        #expect(TokenTrie([]).isEmpty)
    }

    /// A biasing over the toy vocabulary where every "word" is one character; tokens 0-4 begin with a space.
    static func biasing(_ phrases: [String], weight: Float = 2) -> ContextualBiasing {
        let alphabet: [Character] = ["a", "b", "c", "d", "e"]
        return ContextualBiasing(
            phrases: phrases, weight: weight, firstSpecial: eot,
            encode: { text in
                // " x" is token index(x); "x" without a space is index(x) + 5; capitals as the lower case.
                var ids: [Int] = [], spaced = false
                for ch in text.lowercased() {
                    if ch == " " { spaced = true; continue }
                    guard let i = alphabet.firstIndex(of: ch) else { return [] }
                    ids.append(spaced ? i : i + 5)
                    spaced = false
                }
                return ids
            },
            isSpaced: { $0 < 5 })
    }

    @Test("Biasing: a bonus on continuing tokens, taken back when the phrase is left unfinished")
    func biasingBonus() {
        // " a" then "b" then "c": the phrase "abc" written as one spaced word is [0, 6, 7].
        let bias = Self.biasing(["abc"])
        let flat = [Float](repeating: -1, count: Self.count)
        // Outside a phrase: the spaced first token gets the bonus; the unspaced one only at the start of text.
        let start = Self.apply(bias, flat, sampled: [12])
        #expect(start[0] == 1 && start[5] == 1 && start[1] == -1)
        let middle = Self.apply(bias, flat, sampled: [12, 3])
        #expect(middle[0] == 1 && middle[5] == -1)
        // Inside " a": "b" continues (+2); everything else gives back the 2 collected; " a" restarts (-2 + 2).
        let inside = Self.apply(bias, flat, sampled: [12, 0])
        #expect(inside[6] == 1 && inside[3] == -3 && inside[Self.eot] == -3 && inside[0] == -1)
        // Inside " a b": leaving takes back 4.
        #expect(Self.apply(bias, flat, sampled: [12, 0, 6])[3] == -5)
        // A complete phrase keeps its bonus: nothing taken back after it.
        #expect(Self.apply(bias, flat, sampled: [12, 0, 6, 7])[3] == -1)
        // Net bonus: complete phrases keep weight per token; unfinished ones give it all back.
        #expect(bias.netBonus([12, 0, 6, 7, 3, 10][...]) == 6)
        #expect(bias.netBonus([12, 0, 6, 3, 10][...]) == 0)
        #expect(bias.netBonus([12, 0, 6, 10][...]) == 0)
        #expect(bias.netBonus([12, 3, 10][...]) == 0)
    }

    @Test("Biasing: capitalized and unspaced variants, empty and odd phrases, a 10,000-phrase list")
    func biasingLists() {
        #expect(Self.biasing([]).trie.isEmpty)
        #expect(Self.biasing(["", "   ", "x1!", "日本"]).trie.isEmpty)   // nothing the toy tokenizer spells
        // "ab cd": spaced and unspaced starts, each word capitalized (the toy tokenizer folds case).
        let two = Self.biasing(["ab  cd"])
        #expect(two.trie.child(of: 0, token: 0) != nil && two.trie.child(of: 0, token: 5) != nil)
        var phrases: [String] = []
        let letters = ["a", "b", "c", "d", "e"]
        for i in 0..<10_000 {
            var n = i, word = ""
            repeat { word += letters[n % 5]; n /= 5 } while n > 0
            phrases.append(word)
        }
        let big = Self.biasing(phrases, weight: 1.5)
        #expect(big.trie.nodeCount > 10_000)
        let row = Self.apply(big, [Float](repeating: 0, count: Self.count), sampled: [12, 0, 6, 7, 8])
        #expect(row.allSatisfy { $0.isFinite })
    }

    @Test("The chain masks before normalising and reports scores without the biasing's bonuses")
    func chain() {
        var chain = LogitsProcessorChain()
        chain.masks = [SuppressTokens(ids: [2])]
        let bias = Self.biasing(["abc"])
        chain.adjustments = [bias]
        chain.biasing = bias
        var row = [Float](repeating: 0, count: Self.count)
        row.withUnsafeMutableBufferPointer {
            chain.mask($0.baseAddress!, count: $0.count, sampled: [12][...])
            chain.adjust($0.baseAddress!, count: $0.count, sampled: [12][...])
        }
        #expect(row[2] == -.infinity && row[0] == 2 && row[1] == 0)
        #expect(chain.addedScore([12, 0, 6, 7][...]) == 6)
        #expect(LogitsProcessorChain().addedScore([1, 2][...]) == 0)
    }
}
