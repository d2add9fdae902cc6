/// Whisper's text decoder: token and learned position embeddings, pre-norm blocks of causal
/// self-attention (cached keys/values), cross-attention on the encoder output and feed-forward,
/// final layer norm, output projection tied to the token embedding.
final class TextDecoder {
    let weights: WhisperWeights
    let cache: KeyValueCache
    let parallel: Parallel
    private let hidden = Buffer(), normed = Buffer(), projected = Buffer(), context = Buffer()
    private let scores = Buffer(), inner = Buffer(), logitBuffer = Buffer(), rowBuffer = Buffer(), halfScratch = Buffer()

    /// How rows of the input relate to the cache.
    private enum Rows {
        /// Consecutive tokens of beam 0 at positions `start ..< start + count`.
        case sequence(start: Int)
        /// One token per beam, all at `position`.
        case beams(position: Int)
    }

    init(weights: WhisperWeights, maxBeams: Int, parallel: Parallel) {
        self.weights = weights
        self.parallel = parallel
        let dims = weights.dimensions
        cache = KeyValueCache(layers: dims.decoderLayers, width: dims.modelWidth, heads: dims.decoderHeads,
                              capacity: dims.textContext,
                              memoryLength: dims.audioContext, maxBeams: maxBeams)
    }

    /// Projects an encoder output `[audioContext, d]` to each layer's cross-attention keys/values.
    /// `frames` below `audioContext`: a shortened encoding (the first `frames` positions only).
    func setMemory(_ encoderOutput: UnsafePointer<Float>, frames: Int? = nil) {
        let count = frames ?? cache.memoryLength
        // `projected` is free between decoding steps.
        let keysValues = projected.reserve(count * 2 * weights.dimensions.modelWidth)
        for (l, layer) in weights.decoderLayers.enumerated() {
            layer.crossAttention.memory!.apply(encoderOutput, rows: count, into: keysValues,
                                               scratch: halfScratch, parallel: parallel)
            cache.setMemory(layer: l, projected: keysValues, count: count)
        }
    }

    /// Runs `tokens` of beam 0 at positions `start...`, filling the cache; returns the logits
    /// `[outputRows.count, vocabulary]` of the rows listed in `outputRows`.
    /// `crossScores`, if given, receives raw cross-attention scores `(layer, head, rows × audioContext)`.
    func forward(tokens: [Int], start: Int, outputRows: [Int],
                 crossScores: ((_ layer: Int, _ head: Int, _ scores: UnsafePointer<Float>) -> Void)? = nil)
        -> UnsafePointer<Float> {
        let x = run(tokens: tokens, rows: .sequence(start: start), crossScores: crossScores)
        let d = weights.dimensions.modelWidth
        let selected = rowBuffer.reserve(max(outputRows.count, 1) * d)
        for (i, r) in outputRows.enumerated() { (selected + i * d).update(from: x + r * d, count: d) }
        return logits(selected, rows: outputRows.count)
    }

    /// One decoding step: token `tokens[b]` of each beam b at `position`; returns logits `[beams, vocabulary]`.
    func step(tokens: [Int], position: Int) -> UnsafePointer<Float> {
        let x = run(tokens: tokens, rows: .beams(position: position), crossScores: nil)
        return logits(x, rows: tokens.count)
    }

    private func logits(_ x: UnsafeMutablePointer<Float>, rows: Int) -> UnsafePointer<Float> {
        StageTimes.measure(.outputProjection) { projectLogits(x, rows: rows) }
    }

    private func projectLogits(_ x: UnsafeMutablePointer<Float>, rows: Int) -> UnsafePointer<Float> {
        let d = weights.dimensions.modelWidth, vocabulary = weights.dimensions.vocabularySize
        let n = normed.reserve(rows * d)
        Vector.layerNorm(x, rows: rows, columns: d, gamma: weights.decoderNormGamma, beta: weights.decoderNormBeta, into: n)
        let out = logitBuffer.reserve(rows * vocabulary)
        if rows > 0 { weights.outputProjection.apply(n, rows: rows, into: out, scratch: halfScratch, parallel: parallel) }
        return UnsafePointer(out)
    }

    private func run(tokens: [Int], rows mode: Rows,
                     crossScores: ((Int, Int, UnsafePointer<Float>) -> Void)?) -> UnsafeMutablePointer<Float> {
        let dims = weights.dimensions
        let d = dims.modelWidth, heads = dims.decoderHeads, headDim = d / heads
        let rows = tokens.count
        let x = hidden.reserve(rows * d)
        StageTimes.measure(.decoderLayers) {
            for (r, token) in tokens.enumerated() {
                let position: Int
                switch mode {
                case .sequence(let start): position = start + r
                case .beams(let p): position = p
                }
                let row = x + r * d
                weights.embedding.row(token, into: row)
                Vector.add(weights.decoderPositions.row(position), to: row, count: d)
            }
        }
        for (l, layer) in weights.decoderLayers.enumerated() {
          // The feed-forward reserves `normed` too: each layer takes its pointers anew.
          let n = normed.reserve(rows * d), ctx = context.reserve(rows * d)
          StageTimes.measure(.decoderLayers) {
            // Causal self-attention with the cache.
            let sa = layer.selfAttention
            Vector.layerNorm(x, rows: rows, columns: d, gamma: sa.normGamma, beta: sa.normBeta, into: n)
            let qkv = projected.reserve(rows * 3 * d)
            sa.input.apply(n, rows: rows, into: qkv, scratch: halfScratch, parallel: parallel)
            switch mode {
            case .sequence(let start):
                let keys = cache.keys(layer: l, beam: 0), values = cache.values(layer: l, beam: 0)
                for r in 0..<rows {
                    (keys + (start + r) * d).update(from: qkv + r * 3 * d + d, count: d)
                    (values + (start + r) * d).update(from: qkv + r * 3 * d + 2 * d, count: d)
                }
                Attention.attend(query: qkv, queryStride: 3 * d, rows: rows, key: keys, keyStride: d,
                                 value: values, valueStride: d, length: start + rows, heads: heads, headDim: headDim,
                                 causalStart: start, output: ctx, outputStride: d, scores: scores)
            case .beams(let position):
                for b in 0..<rows {
                    let keys = cache.keys(layer: l, beam: b), values = cache.values(layer: l, beam: b)
                    (keys + position * d).update(from: qkv + b * 3 * d + d, count: d)
                    (values + position * d).update(from: qkv + b * 3 * d + 2 * d, count: d)
                    Attention.attend(query: qkv + b * 3 * d, queryStride: 3 * d, rows: 1, key: keys, keyStride: d,
                                     value: values, valueStride: d, length: position + 1, heads: heads,
                                     headDim: headDim, output: ctx + b * d, outputStride: d, scores: scores)
                }
            }
            sa.output.apply(ctx, rows: rows, into: x, accumulate: true, scratch: halfScratch, parallel: parallel)
          }

          StageTimes.measure(.crossAttention) {
            // Cross-attention on the window's encoder output (shared by all beams).
            let ca = layer.crossAttention
            Vector.layerNorm(x, rows: rows, columns: d, gamma: ca.normGamma, beta: ca.normBeta, into: n)
            let q = projected.reserve(rows * d)
            ca.input.apply(n, rows: rows, into: q, scratch: halfScratch, parallel: parallel)
            Attention.attend(query: q, queryStride: d, rows: rows, key: cache.memoryKeys(layer: l), keyStride: headDim,
                             value: cache.memoryValues(layer: l), valueStride: headDim, length: cache.memoryCount,
                             heads: heads, headDim: headDim, keyHeadStride: cache.memoryHeadStride,
                             valueHeadStride: cache.memoryHeadStride, output: ctx, outputStride: d, scores: scores,
                             onScores: crossScores.map { callback in { head, s in callback(l, head, s) } },
                             parallel: parallel)
            ca.output.apply(ctx, rows: rows, into: x, accumulate: true, scratch: halfScratch, parallel: parallel)
          }

          StageTimes.measure(.decoderLayers) {
            FeedForward.apply(layer.feedForward, to: x, rows: rows, normed: normed, hidden: inner, scratch: halfScratch,
                              parallel: parallel)
          }
        }
        return x
    }
}
