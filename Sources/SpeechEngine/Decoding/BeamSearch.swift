extension WindowDecoding {
    /// Beam search as CTranslate2 runs it: the beams decoded as one batch, the 2·beam best
    /// continuations kept, finished hypotheses replaced by the next unfinished candidates, stopping
    /// once `beam · patience` hypotheses have finished; the best by length-normalised score wins. With
    /// `keepHypotheses`, the finished hypotheses, ranked by that score, go with it (at most `beamSize`).
    func beamSearch(startToken: Int, startStep: Int, maxLength: Int, beamSize: Int, patience: Double,
                    lengthPenalty: Double, noSpeech: Double, noSpeechAtStart: Bool,
                    keepHypotheses: Bool = false) -> WindowResult {
        let vocabulary = decoder.weights.dimensions.vocabularySize
        let candidates = 2 * beamSize
        let maxHypotheses = max(1, Int((Double(beamSize) * patience).rounded()))
        var noSpeech = noSpeech
        var sequences: [[Int]] = [[]]
        var scores: [Float] = [0]
        var lastTokens = [startToken]
        var finished: [(tokens: [Int], score: Double, cumulative: Double)] = []
        var top = TopK(capacity: candidates)
        for step in 0..<maxLength {
            let rows = lastTokens.count
            let logits = UnsafeMutablePointer(mutating: decoder.step(tokens: lastTokens, position: startStep + step))
            if step == 0 && noSpeechAtStart {
                noSpeech = Self.probability(of: tokenizer.noSpeech, in: logits, count: vocabulary)
            }
            top.reset()
            for b in 0..<rows {
                let row = logits + b * vocabulary
                processors.mask(row, count: vocabulary, sampled: sequences[b][...])
                let normalizer = Vector.logSumExp(row, count: vocabulary)
                processors.adjust(row, count: vocabulary, sampled: sequences[b][...])
                let offset = scores[b] - normalizer
                top.scan(row, count: vocabulary, offset: offset, base: b * vocabulary)
            }
            let isLast = step + 1 == maxLength
            var nextSequences: [[Int]] = [], nextScores: [Float] = [], origins: [Int] = []
            var secondary = beamSize
            let ranked = top.sorted()
            for k in 0..<min(beamSize, ranked.count) {
                var pick = ranked[k]
                let token = pick.index % vocabulary
                if token == tokenizer.eot || isLast {
                    let origin = pick.index / vocabulary
                    var hypothesis = sequences[origin]
                    if token != tokenizer.eot { hypothesis.append(token) }
                    let length = Double(hypothesis.count)
                    // Ranked with the biasing's bonuses (shallow fusion), reported without them.
                    let added = processors.biasing == nil ? 0
                        : processors.addedScore((token == tokenizer.eot ? hypothesis + [token] : hypothesis)[...])
                    finished.append((hypothesis, Double(pick.score) / libmPow(length, lengthPenalty),
                                     Double(pick.score) - added))
                    // Replace it with the next candidate that is not the end of text.
                    var replaced = false
                    while secondary < ranked.count {
                        let candidate = ranked[secondary]
                        secondary += 1
                        if candidate.index % vocabulary != tokenizer.eot { pick = candidate; replaced = true; break }
                    }
                    if !replaced { continue }
                }
                let origin = pick.index / vocabulary
                nextSequences.append(sequences[origin] + [pick.index % vocabulary])
                nextScores.append(pick.score)
                origins.append(origin)
            }
            if isLast || finished.count >= maxHypotheses || nextSequences.isEmpty { break }
            if step == 0 {
                decoder.cache.expand(to: nextSequences.count, length: startStep + 1)
            } else {
                decoder.cache.reorder(origins, length: startStep + step + 1)
            }
            sequences = nextSequences
            scores = nextScores
            lastTokens = nextSequences.map { $0.last! }
        }
        decoder.cache.expand(to: 1, length: 0)
        guard let best = finished.max(by: { $0.score < $1.score }) else {
            return WindowResult(tokens: sequences.first ?? [], cumulativeLogProb: Double(scores.first ?? 0),
                                noSpeechProb: noSpeech)
        }
        var result = WindowResult(tokens: best.tokens, cumulativeLogProb: best.cumulative, noSpeechProb: noSpeech)
        if keepHypotheses { result.hypotheses = ranked(finished.map { ($0.tokens, $0.score) }, limit: beamSize) }
        return result
    }
}
