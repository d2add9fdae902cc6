/// Beam search over a decoder's next-token logits, as a value the decoding loop feeds: CTranslate2's rule, the one
/// Whisper's beam search follows (`BeamSearch.swift`). Each step the `2 · beamSize` best continuations of the live
/// beams by cumulative log-probability are ranked; one that ends with the end token (or any, at the last step) is a
/// finished hypothesis, replaced by the next best that does not end; the search stops once `beamSize` hypotheses have
/// finished. The best finished hypothesis by `score / length^lengthPenalty` wins. With `beamSize` 1 it is greedy.
struct TokenBeamSearch {
    let beamSize: Int
    let endToken: Int
    let lengthPenalty: Double
    /// The live beams' tokens (without the start token) and cumulative log-probabilities.
    private(set) var sequences: [[Int]] = [[]]
    private(set) var scores: [Float] = [0]
    private(set) var finished: [(tokens: [Int], score: Double)] = []
    private var top: TopK

    init(beamSize: Int, endToken: Int, lengthPenalty: Double = 1) {
        precondition(beamSize >= 1, "TokenBeamSearch: a beam of at least 1")
        self.beamSize = beamSize
        self.endToken = endToken
        self.lengthPenalty = lengthPenalty
        top = TopK(capacity: 2 * beamSize)
    }

    /// One step: `logits` `[sequences.count × vocabulary]` for the live beams, in order. Returns the
    /// beam each next live beam continues (`origins`) and its new token, or nil once the search is over (enough
    /// hypotheses finished, `isLast`, or no beam left). With `allowsEnd` false the end token is not a candidate and
    /// the others' log-probabilities are taken among themselves (as if the end token had none).
    mutating func advance(logits: UnsafePointer<Float>, vocabulary: Int, isLast: Bool,
                          allowsEnd: Bool = true) -> (origins: [Int], tokens: [Int])? {
        top.reset()
        for b in sequences.indices {
            let row = logits + b * vocabulary
            let normalizer = allowsEnd ? Vector.logSumExp(row, count: vocabulary) : Self.logSumExp(row, vocabulary, without: endToken)
            top.scan(row, count: vocabulary, offset: scores[b] - normalizer, base: b * vocabulary)
        }
        let ranked = allowsEnd ? top.sorted() : top.sorted().filter { $0.index % vocabulary != endToken }
        var nextSequences: [[Int]] = [], nextScores: [Float] = [], origins: [Int] = [], tokens: [Int] = []
        var secondary = beamSize
        for k in 0..<min(beamSize, ranked.count) {
            var pick = ranked[k]
            if pick.index % vocabulary == endToken || isLast {
                var hypothesis = sequences[pick.index / vocabulary]
                if pick.index % vocabulary != endToken { hypothesis.append(pick.index % vocabulary) }
                finished.append((hypothesis, Double(pick.score) / libmPow(Double(max(hypothesis.count, 1)), lengthPenalty)))
                // Replaced by the next candidate past the beam that does not end.
                var replaced = false
                while secondary < ranked.count {
                    let candidate = ranked[secondary]
                    secondary += 1
                    if candidate.index % vocabulary != endToken { pick = candidate; replaced = true; break }
                }
                if !replaced { continue }
            }
            let origin = pick.index / vocabulary, token = pick.index % vocabulary
            nextSequences.append(sequences[origin] + [token])
            nextScores.append(pick.score)
            origins.append(origin)
            tokens.append(token)
        }
        if isLast || finished.count >= beamSize || nextSequences.isEmpty { return nil }
        sequences = nextSequences
        scores = nextScores
        return (origins, tokens)
    }

    /// The log-sum-exp of `row`'s first `count` values but the one at `excluded`.
    private static func logSumExp(_ row: UnsafePointer<Float>, _ count: Int, without excluded: Int) -> Float {
        let before = excluded > 0 ? Vector.logSumExp(row, count: excluded) : -.infinity
        let after = excluded + 1 < count ? Vector.logSumExp(row + excluded + 1, count: count - excluded - 1) : -.infinity
        let larger = max(before, after)
        guard larger > -.infinity else { return larger }
        return larger + Float(libmLog(libmExp(Double(before - larger)) + libmExp(Double(after - larger))))
    }

    /// The winning tokens: the best finished hypothesis, else (a search cut short) the best live beam.
    var best: [Int] {
        finished.max { $0.score < $1.score }?.tokens ?? sequences.first ?? []
    }

    /// The best finished hypothesis's length-normalised score (with `lengthPenalty` 1, its mean log-probability per
    /// token); nil before one finished.
    var bestScore: Double? { finished.map(\.score).max() }
}
