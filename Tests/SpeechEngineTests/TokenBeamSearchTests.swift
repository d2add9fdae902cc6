import Foundation
import Testing
@testable import SpeechEngine

/// The beam search policy Moonshine's decoding uses, driven by a scripted model (log-probabilities by prefix), no
/// weights: beam 1 is greedy; a wider beam finds the likelier sequence greedy misses; the budget ends the search.
@Suite struct TokenBeamSearchTests {
    /// Tokens 0 (a), 1 (b), 2 (end): after the start a 0.6, b 0.4; after a: a 0.34, b 0.33, end 0.33; after a a: end;
    /// after b: b 0.95, end 0.05; after b b: end. Greedy reads a a (log 0.6·0.34 over 2 tokens: −0.80 a token); the
    /// likelier sequence is b b (log 0.4·0.95 over 2: −0.48).
    static func probabilities(after prefix: [Int]) -> [Double] {
        switch prefix {
        case []: [0.6, 0.4, 0]
        case [0]: [0.34, 0.33, 0.33]
        case [1]: [0, 0.95, 0.05]
        default: [0.01, 0.01, 0.98]
        }
    }

    static func search(beamSize: Int, budget: Int, endAllowedFrom: Int = 0) -> [Int] {
        var search = TokenBeamSearch(beamSize: beamSize, endToken: 2)
        var live: [[Int]] = [[]]
        var logits = [Float](repeating: 0, count: 3 * beamSize)
        for step in 0..<budget {
            for (b, prefix) in live.enumerated() {
                for (t, p) in probabilities(after: prefix).enumerated() { logits[b * 3 + t] = p > 0 ? Float(log(p)) : -.infinity }
            }
            let next = logits.withUnsafeMutableBufferPointer {
                search.advance(logits: $0.baseAddress!, vocabulary: 3, isLast: step + 1 == budget,
                               allowsEnd: step >= endAllowedFrom)
            }
            guard let next else { break }
            live = zip(next.origins, next.tokens).map { live[$0] + [$1] }
        }
        return search.best
    }

    @Test("beam 1 is greedy; beam 2 finds the likelier sequence; a budget of one token ends the search with one")
    func scripted() {
        #expect(Self.search(beamSize: 1, budget: 10) == [0, 0])
        #expect(Self.search(beamSize: 2, budget: 10) == [1, 1])
        #expect(Self.search(beamSize: 2, budget: 1).count == 1)
    }

    @Test("a step that does not allow the end continues past it, the other tokens' probabilities taken among themselves")
    func endNotAllowed() {
        // After a a the end is all but sure (0.98); not allowed at the third step, a (the first of a tie), then the end.
        #expect(Self.search(beamSize: 1, budget: 10, endAllowedFrom: 3) == [0, 0, 0])
        // An end the model is sure of at the first step: read past it, the first token among the others.
        var search = TokenBeamSearch(beamSize: 1, endToken: 2)
        var logits: [Float] = [log(0.01), log(0.03), log(0.96)]
        let next = logits.withUnsafeMutableBufferPointer {
            search.advance(logits: $0.baseAddress!, vocabulary: 3, isLast: false, allowsEnd: false)
        }
        #expect(next?.tokens == [1])
        #expect(abs(search.scores[0] - log(0.75)) < 1e-5, "b's probability among a and b: \(search.scores[0])")
        logits = [log(0.01), log(0.03), log(0.96)]
        let ended = logits.withUnsafeMutableBufferPointer {
            search.advance(logits: $0.baseAddress!, vocabulary: 3, isLast: false)
        }
        #expect(ended == nil && search.best == [1])
    }
}
