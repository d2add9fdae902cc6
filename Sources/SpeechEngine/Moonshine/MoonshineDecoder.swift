import Foundation

/// Moonshine's decoder, one position a step for each live beam, keys and values cached: each step embeds the beams'
/// tokens, runs the layers (rotary causal self-attention over each beam's tokens so far, cross-attention over the
/// encoder's frames, the SiLU-gated feed-forward) and returns each beam's logits for its next token. The decoder's
/// products take all beams' rows at once (one pass over the weights).
final class MoonshineDecoder {
    let weights: MoonshineWeights
    let parallel: Parallel
    /// The most tokens a sequence may hold (the cache's size), start token included.
    let capacity: Int
    let maxBeams: Int
    /// Positions decoded since `start` (every beam has the same).
    private(set) var length = 0
    /// Encoder frames the cross-attention reads.
    private(set) var frames = 0
    /// Live beams.
    private(set) var beams = 1

    /// Per layer: `maxBeams` slots of self-attention keys `[capacity, d]`, then as many of values.
    private let selfCache: [UnsafeMutablePointer<Float>]
    /// The cache slot of each live beam; `reorder` hands slots over and copies only where two beams share an origin.
    private var slots: [Int]
    private var nextSlots: [Int], handedOver: [Bool], usedSlots: [Bool]
    /// Per layer: the encoder output projected to keys, then values, `[frames, d]` each.
    private let crossCache: [Buffer]
    private let hidden = Buffer(), normed = Buffer(), query = Buffer(), keyRows = Buffer(), valueRows = Buffer()
    private let context = Buffer(), scores = Buffer(), up = Buffer(), gated = Buffer(), angles = Buffer()
    private let logitBuffer = Buffer(), scratch = Buffer()
    /// Cross-attention heads whose scores a single beam's steps record (word times): per layer, each head's index
    /// in the record (nil: not recorded).
    private var recordedHeads: [[Int?]]
    /// What the steps of a single beam recorded since `start`: per step, per recorded head, the raw (scaled,
    /// before softmax) scores over the `frames` encoder frames.
    private(set) var attentionRecord: [Float] = []
    /// The number of heads recorded.
    private(set) var recordedHeadCount = 0

    init(weights: MoonshineWeights, capacity: Int, maxBeams: Int, parallel: Parallel) {
        self.weights = weights
        self.capacity = capacity
        self.maxBeams = max(1, maxBeams)
        self.parallel = parallel
        let floats = 2 * self.maxBeams * capacity * weights.modelWidth
        selfCache = weights.decoderLayers.map { _ in .allocate(capacity: floats) }
        crossCache = weights.decoderLayers.map { _ in Buffer() }
        slots = Array(0..<self.maxBeams)
        nextSlots = slots
        handedOver = [Bool](repeating: false, count: self.maxBeams)
        usedSlots = handedOver
        recordedHeads = weights.decoderLayers.map { _ in [Int?](repeating: nil, count: MoonshineWeights.heads) }
    }

    /// Records the cross-attention of `heads` (layer, head) in the steps of a single beam from the next `start` on
    /// (`attentionRecord`); empty: none.
    func record(heads: [(layer: Int, head: Int)]) {
        recordedHeads = weights.decoderLayers.map { _ in [Int?](repeating: nil, count: MoonshineWeights.heads) }
        for (index, pair) in heads.enumerated() { recordedHeads[pair.layer][pair.head] = index }
        recordedHeadCount = heads.count
    }

    deinit { selfCache.forEach { $0.deallocate() } }

    /// Starts a sequence (one beam) over the encoder output `states` (`[frames, d]`): its keys and values for every
    /// layer.
    func start(encoderStates states: UnsafePointer<Float>, frames: Int) {
        let d = weights.modelWidth
        for (layer, cache) in zip(weights.decoderLayers, crossCache) {
            let keys = cache.reserve(2 * frames * d)
            layer.crossAttention.key.apply(states, rows: frames, into: keys, scratch: scratch, parallel: parallel)
            layer.crossAttention.value.apply(states, rows: frames, into: keys + frames * d, scratch: scratch,
                                             parallel: parallel)
        }
        self.frames = frames
        restart()
    }

    /// Starts a new sequence over the same encoder output (a forced pass over tokens already chosen).
    func restart() {
        length = 0
        beams = 1
        slots = Array(0..<maxBeams)
        attentionRecord.removeAll(keepingCapacity: true)
        attentionRecord.reserveCapacity(capacity * recordedHeadCount * frames)
    }

    /// The next live beams: beam b continues the current beam `origins[b]` (at most `maxBeams` of them).
    func reorder(_ origins: [Int]) {
        precondition(origins.count <= maxBeams && origins.allSatisfy { $0 < beams }, "MoonshineDecoder: bad beams")
        let d = weights.modelWidth
        for i in 0..<maxBeams { handedOver[i] = false; usedSlots[i] = false }
        for (b, origin) in origins.enumerated() {
            if handedOver[origin] {
                nextSlots[b] = -1
            } else {
                handedOver[origin] = true
                nextSlots[b] = slots[origin]
                usedSlots[slots[origin]] = true
            }
        }
        var free = 0
        for (b, origin) in origins.enumerated() where nextSlots[b] < 0 {
            while usedSlots[free] { free += 1 }
            usedSlots[free] = true
            nextSlots[b] = free
            for cache in selfCache {
                for half in 0..<2 {
                    let base = cache + half * maxBeams * capacity * d
                    (base + free * capacity * d).update(from: base + slots[origin] * capacity * d, count: length * d)
                }
            }
        }
        for b in origins.indices { slots[b] = nextSlots[b] }
        beams = origins.count
    }

    /// Decodes `tokens` (one per live beam, in order) at the next position; returns the logits
    /// `[beams, vocabulary]` for the position after, valid until the next call.
    func step(_ tokens: [Int]) -> UnsafePointer<Float> {
        precondition(tokens.count == beams, "MoonshineDecoder: one token per live beam")
        precondition(length < capacity, "MoonshineDecoder: the sequence is longer than its cache")
        precondition(frames > 0, "MoonshineDecoder: step before start")
        let d = weights.modelWidth, heads = MoonshineWeights.heads, headDim = weights.headDim
        let rows = tokens.count, position = length
        let x = hidden.reserve(rows * d)
        for (r, token) in tokens.enumerated() { weights.embed(token, into: x + r * d) }
        let table = angles.reserve(weights.rotary.dimensions)
        weights.rotary.fillTable(table, positions: position, count: 1)
        let n = normed.reserve(rows * d), q = query.reserve(rows * d), c = context.reserve(rows * d)
        let k = keyRows.reserve(rows * d), v = valueRows.reserve(rows * d)

        for (l, layer) in weights.decoderLayers.enumerated() {
            // Causal self-attention: each beam's key and value join its cache slot.
            let a = layer.selfAttention
            Vector.layerNorm(x, rows: rows, columns: d, gamma: a.norm, beta: weights.zeros, into: n)
            a.query.apply(n, rows: rows, into: q, scratch: scratch, parallel: parallel)
            a.key.apply(n, rows: rows, into: k, scratch: scratch, parallel: parallel)
            a.value.apply(n, rows: rows, into: v, scratch: scratch, parallel: parallel)
            for r in 0..<rows {
                weights.rotary.rotate(q + r * d, rows: 1, stride: d, heads: heads, headDim: headDim, table: table)
                weights.rotary.rotate(k + r * d, rows: 1, stride: d, heads: heads, headDim: headDim, table: table)
                let keys = selfCache[l] + slots[r] * capacity * d, values = keys + maxBeams * capacity * d
                (keys + position * d).update(from: k + r * d, count: d)
                (values + position * d).update(from: v + r * d, count: d)
                Attention.attend(query: q + r * d, queryStride: d, rows: 1, key: keys, keyStride: d, value: values,
                                 valueStride: d, length: position + 1, heads: heads, headDim: headDim,
                                 output: c + r * d, outputStride: d, scores: scores)
            }
            a.output.apply(c, rows: rows, into: x, accumulate: true, scratch: scratch, parallel: parallel)

            // Cross-attention over the encoder's frames.
            let cross = layer.crossAttention
            Vector.layerNorm(x, rows: rows, columns: d, gamma: cross.norm, beta: weights.zeros, into: n)
            cross.query.apply(n, rows: rows, into: q, scratch: scratch, parallel: parallel)
            let memory = crossCache[l].pointer
            let recorded = rows == 1 && recordedHeadCount > 0 ? recordedHeads[l] : nil
            if recorded != nil, l == 0 {
                attentionRecord.append(contentsOf: repeatElement(0, count: recordedHeadCount * frames))
            }
            let stepRecord = attentionRecord.count - recordedHeadCount * frames, frames = frames
            Attention.attend(query: q, queryStride: d, rows: rows, key: memory, keyStride: d, value: memory + frames * d,
                             valueStride: d, length: frames, heads: heads, headDim: headDim, output: c,
                             outputStride: d, scores: scores,
                             onScores: recorded.map { recorded in { [self] head, raw in
                                 guard let index = recorded[head] else { return }
                                 attentionRecord.withUnsafeMutableBufferPointer {
                                     ($0.baseAddress! + stepRecord + index * frames).update(from: raw, count: frames)
                                 }
                             } })
            cross.output.apply(c, rows: rows, into: x, accumulate: true, scratch: scratch, parallel: parallel)

            // Gated feed-forward: value · SiLU(gate).
            Vector.layerNorm(x, rows: rows, columns: d, gamma: layer.feedForwardNorm, beta: weights.zeros, into: n)
            let inner = layer.down.inputs
            let u = up.reserve(rows * 2 * inner), g = gated.reserve(rows * inner)
            layer.gatedUp.apply(n, rows: rows, into: u, scratch: scratch, parallel: parallel)
            for r in 0..<rows {
                let values = u + r * 2 * inner, gates = values + inner, out = g + r * inner
                for i in 0..<inner {
                    let gate = gates[i]
                    out[i] = values[i] * (gate / (1 + exp(-gate)))
                }
            }
            layer.down.apply(g, rows: rows, into: x, accumulate: true, scratch: scratch, parallel: parallel)
        }
        length += 1
        Vector.layerNorm(x, rows: rows, columns: d, gamma: weights.decoderNorm, beta: weights.zeros, into: n)
        let logits = logitBuffer.reserve(rows * weights.vocabularySize)
        weights.embedding.apply(n, rows: rows, into: logits, scratch: scratch, parallel: parallel)
        return UnsafePointer(logits)
    }
}
