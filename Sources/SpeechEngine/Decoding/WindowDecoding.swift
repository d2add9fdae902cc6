/// The result of decoding one 30 s window.
struct WindowResult {
    /// Generated tokens, end of text excluded.
    var tokens: [Int]
    /// Sum of the chosen tokens' log-probabilities (end of text included).
    var cumulativeLogProb: Double
    /// Probability of the no-speech token at the start of the transcript.
    var noSpeechProb: Double
    /// The finished hypotheses' tokens (end of text excluded), best first, `tokens` among them: kept only when
    /// asked for (`TranscriptionOptions.alternatives`), else empty.
    var hypotheses: [[Int]] = []
    /// faster-whisper's average: the length-normalised score times the length, over length + 1.
    var averageLogProb: Double {
        let length = Double(tokens.count)
        let score = Double(Float(cumulativeLogProb) / Float(length))   // CTranslate2's normalised score
        return score * length / (length + 1)
    }
}

/// Decodes a window whose encoder output the decoder already holds: prompt, then greedy search,
/// sampling or beam search under the `LogitsProcessorChain`, as CTranslate2's Whisper `generate` does (plus
/// contextual biasing when the chain has it).
struct WindowDecoding {
    let decoder: TextDecoder
    let tokenizer: WhisperTokenizer
    let processors: LogitsProcessorChain
    let textContext: Int

    /// Decodes after `prompt` (previous text, start of transcript, language, task...). With `keepHypotheses`,
    /// the result also holds the ranked finished hypotheses (beam search) or samples (temperature above 0).
    func decode(prompt: [Int], temperature: Double, beamSize: Int, bestOf: Int, patience: Double,
                lengthPenalty: Double, maxNewTokens: Int?, keepHypotheses: Bool = false,
                generator: inout SeededGenerator) -> WindowResult {
        let vocabulary = decoder.weights.dimensions.vocabularySize
        let sotIndex = prompt.firstIndex(of: tokenizer.sot) ?? 0
        var promptLength = sotIndex
        while promptLength < prompt.count, prompt[promptLength] >= tokenizer.sot,
              prompt[promptLength] <= tokenizer.noTimestamps { promptLength += 1 }
        promptLength = max(promptLength, 1)
        let startStep = promptLength - 1
        let startToken = prompt[startStep]
        var noSpeech = 0.0
        if startStep > 0 {
            let wantNoSpeech = sotIndex < startStep
            let logits = decoder.forward(tokens: Array(prompt[0..<startStep]), start: 0,
                                         outputRows: wantNoSpeech ? [sotIndex] : [])
            if wantNoSpeech { noSpeech = Self.probability(of: tokenizer.noSpeech, in: logits, count: vocabulary) }
        }
        let total = maxNewTokens.map { prompt.count + $0 } ?? textContext
        let maxLength = max(1, min(total / 2, total - startStep))
        let sotIsStart = sotIndex == startStep

        if temperature > 0 {
            // best_of samples, the best by length-normalised score.
            var best: WindowResult? = nil, bestScore = -Double.infinity
            var samples: [(tokens: [Int], score: Double)] = []
            for _ in 0..<max(1, bestOf) {
                var ns = noSpeech
                let result = greedy(startToken: startToken, startStep: startStep, maxLength: maxLength,
                                    temperature: temperature, noSpeechAtStart: sotIsStart, noSpeech: &ns,
                                    generator: &generator)
                let score = result.cumulativeLogProb / libmPow(Double(max(result.tokens.count, 1)), lengthPenalty)
                if best == nil || score > bestScore { best = result; bestScore = score }
                if keepHypotheses { samples.append((result.tokens, score)) }
            }
            if keepHypotheses { best!.hypotheses = ranked(samples, limit: max(1, bestOf)) }
            return best!
        }
        if beamSize > 1 {
            return beamSearch(startToken: startToken, startStep: startStep, maxLength: maxLength, beamSize: beamSize,
                              patience: patience, lengthPenalty: lengthPenalty, noSpeech: noSpeech,
                              noSpeechAtStart: sotIsStart, keepHypotheses: keepHypotheses)
        }
        var ns = noSpeech
        return greedy(startToken: startToken, startStep: startStep, maxLength: maxLength, temperature: 0,
                      noSpeechAtStart: sotIsStart, noSpeech: &ns, generator: &generator)
    }

    private func greedy(startToken: Int, startStep: Int, maxLength: Int, temperature: Double,
                        noSpeechAtStart: Bool, noSpeech: inout Double,
                        generator: inout SeededGenerator) -> WindowResult {
        let vocabulary = decoder.weights.dimensions.vocabularySize
        var sampled: [Int] = []
        sampled.reserveCapacity(maxLength)
        var tokens: [Int] = []
        var cumulative = 0.0
        var current = startToken
        for step in 0..<maxLength {
            let logits = UnsafeMutablePointer(mutating: decoder.step(tokens: [current], position: startStep + step))
            if step == 0 && noSpeechAtStart {
                noSpeech = Self.probability(of: tokenizer.noSpeech, in: logits, count: vocabulary)
            }
            processors.mask(logits, count: vocabulary, sampled: sampled[...])
            let normalizer = Vector.logSumExp(logits, count: vocabulary)
            processors.adjust(logits, count: vocabulary, sampled: sampled[...])
            let token = temperature > 0
                ? Self.sample(logits, count: vocabulary, temperature: Float(temperature), generator: &generator)
                : Self.argmax(logits, count: vocabulary)
            cumulative += Double(logits[token] - normalizer)
            sampled.append(token)
            if token == tokenizer.eot { break }
            tokens.append(token)
            current = token
        }
        // The reported log-probability is the model's: without the biasing's bonuses.
        cumulative -= processors.addedScore(sampled[...])
        return WindowResult(tokens: tokens, cumulativeLogProb: cumulative, noSpeechProb: noSpeech)
    }

    static func probability(of token: Int, in logits: UnsafePointer<Float>, count: Int) -> Double {
        Double(libmExpF(logits[token] - Vector.logSumExp(logits, count: count)))
    }

    static func argmax(_ x: UnsafePointer<Float>, count: Int) -> Int {
        var best = 0, value = -Float.infinity
        for i in 0..<count where x[i] > value { value = x[i]; best = i }
        return best
    }

    /// Samples from `softmax(x / temperature)`.
    static func sample(_ x: UnsafePointer<Float>, count: Int, temperature: Float,
                       generator: inout SeededGenerator) -> Int {
        let m = Vector.max(x, count: count)
        var total = 0.0
        for i in 0..<count where x[i] > -.infinity { total += Double(libmExpF((x[i] - m) / temperature)) }
        var target = Double.random(in: 0..<total, using: &generator)
        var last = 0
        for i in 0..<count where x[i] > -.infinity {
            target -= Double(libmExpF((x[i] - m) / temperature))
            last = i
            if target <= 0 { return i }
        }
        return last
    }
}
