import Foundation

/// Moonshine's decoder, one token at a time with its keys and values cached: each step embeds the token, runs the
/// layers (rotary causal self-attention over the tokens so far, cross-attention over the encoder's frames, the
/// SiLU-gated feed-forward) and returns the logits of the next token.
final class MoonshineDecoder {
    let weights: MoonshineWeights
    let parallel: Parallel
    /// The most tokens a sequence may hold (the cache's size), start token included.
    let capacity: Int
    /// Tokens decoded since `start`.
    private(set) var length = 0
    /// Encoder frames the cross-attention reads.
    private(set) var frames = 0

    /// Per layer: the self-attention keys, then values, `[capacity, d]` each.
    private let selfCache: [Buffer]
    /// Per layer: the encoder output projected to keys, then values, `[frames, d]` each.
    private let crossCache: [Buffer]
    private let hidden = Buffer(), normed = Buffer(), query = Buffer(), context = Buffer(), scores = Buffer()
    private let gated = Buffer(), angles = Buffer(), logitBuffer = Buffer(), scratch = Buffer()

    init(weights: MoonshineWeights, capacity: Int, parallel: Parallel) {
        self.weights = weights
        self.capacity = capacity
        self.parallel = parallel
        let d = weights.modelWidth
        selfCache = weights.decoderLayers.map { _ in Buffer(capacity: 2 * capacity * d) }
        crossCache = weights.decoderLayers.map { _ in Buffer() }
    }

    /// Starts a sequence over the encoder output `states` (`[frames, d]`): its keys and values for every layer.
    func start(encoderStates states: UnsafePointer<Float>, frames: Int) {
        let d = weights.modelWidth
        for (layer, cache) in zip(weights.decoderLayers, crossCache) {
            let keys = cache.reserve(2 * frames * d)
            layer.crossAttention.key.apply(states, rows: frames, into: keys, scratch: scratch, parallel: parallel)
            layer.crossAttention.value.apply(states, rows: frames, into: keys + frames * d, scratch: scratch,
                                             parallel: parallel)
        }
        self.frames = frames
        length = 0
    }

    /// Decodes `token` at the next position; returns the logits `[vocabulary]` for the one after it, valid until the
    /// next call.
    func step(_ token: Int) -> UnsafePointer<Float> {
        precondition(length < capacity, "MoonshineDecoder: the sequence is longer than its cache")
        precondition(frames > 0, "MoonshineDecoder: step before start")
        let d = weights.modelWidth, heads = MoonshineWeights.heads, headDim = weights.headDim
        let position = length
        let x = hidden.reserve(d)
        weights.embed(token, into: x)
        let table = angles.reserve(weights.rotary.dimensions)
        weights.rotary.fillTable(table, positions: position, count: 1)
        let n = normed.reserve(d), q = query.reserve(d), c = context.reserve(d)

        for (l, layer) in weights.decoderLayers.enumerated() {
            // Causal self-attention: this token's key and value join the cache.
            let a = layer.selfAttention
            Vector.layerNorm(x, rows: 1, columns: d, gamma: a.norm, beta: weights.zeros, into: n)
            let keys = selfCache[l].pointer, values = keys + capacity * d
            a.query.apply(n, rows: 1, into: q, scratch: scratch, parallel: parallel)
            a.key.apply(n, rows: 1, into: keys + position * d, scratch: scratch, parallel: parallel)
            a.value.apply(n, rows: 1, into: values + position * d, scratch: scratch, parallel: parallel)
            weights.rotary.rotate(q, rows: 1, stride: d, heads: heads, headDim: headDim, table: table)
            weights.rotary.rotate(keys + position * d, rows: 1, stride: d, heads: heads, headDim: headDim, table: table)
            Attention.attend(query: q, queryStride: d, rows: 1, key: keys, keyStride: d, value: values, valueStride: d,
                             length: position + 1, heads: heads, headDim: headDim, output: c, outputStride: d,
                             scores: scores)
            a.output.apply(c, rows: 1, into: x, accumulate: true, scratch: scratch, parallel: parallel)

            // Cross-attention over the encoder's frames.
            let cross = layer.crossAttention
            Vector.layerNorm(x, rows: 1, columns: d, gamma: cross.norm, beta: weights.zeros, into: n)
            cross.query.apply(n, rows: 1, into: q, scratch: scratch, parallel: parallel)
            let memory = crossCache[l].pointer
            Attention.attend(query: q, queryStride: d, rows: 1, key: memory, keyStride: d, value: memory + frames * d,
                             valueStride: d, length: frames, heads: heads, headDim: headDim, output: c,
                             outputStride: d, scores: scores)
            cross.output.apply(c, rows: 1, into: x, accumulate: true, scratch: scratch, parallel: parallel)

            // Gated feed-forward: value · SiLU(gate).
            Vector.layerNorm(x, rows: 1, columns: d, gamma: layer.feedForwardNorm, beta: weights.zeros, into: n)
            let inner = layer.down.inputs
            let u = gated.reserve(2 * inner)
            layer.gatedUp.apply(n, rows: 1, into: u, scratch: scratch, parallel: parallel)
            for i in 0..<inner {
                let gate = u[inner + i]
                u[i] *= gate / (1 + exp(-gate))
            }
            layer.down.apply(u, rows: 1, into: x, accumulate: true, scratch: scratch, parallel: parallel)
        }
        length += 1
        Vector.layerNorm(x, rows: 1, columns: d, gamma: weights.decoderNorm, beta: weights.zeros, into: n)
        let vocabulary = weights.vocabularySize
        let logits = logitBuffer.reserve(vocabulary)
        weights.embedding.apply(n, rows: 1, into: logits, scratch: scratch, parallel: parallel)
        return UnsafePointer(logits)
    }
}
