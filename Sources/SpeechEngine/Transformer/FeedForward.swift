/// The pre-norm feed-forward block: `x += W2 · GELU(W1 · LN(x) + b1) + b2`.
enum FeedForward {
    static func apply(_ w: FeedForwardWeights, to x: UnsafeMutablePointer<Float>, rows: Int,
                      normed: Buffer, hidden: Buffer, scratch: Buffer, parallel: Parallel) {
        let d = w.normGamma.count, inner = w.up.outputs
        let n = normed.reserve(rows * d)
        Vector.layerNorm(x, rows: rows, columns: d, gamma: w.normGamma, beta: w.normBeta, into: n, parallel: parallel)
        let h = hidden.reserve(rows * inner)
        w.up.apply(n, rows: rows, into: h, scratch: scratch, parallel: parallel)
        parallel.forEachSlice(of: rows, minimumSlice: 16) { _, slice in
            Vector.gelu(h + slice.lowerBound * inner, count: slice.count * inner)
        }
        w.down.apply(h, rows: rows, into: x, accumulate: true, scratch: scratch, parallel: parallel)
    }
}

