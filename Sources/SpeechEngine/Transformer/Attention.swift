/// Scaled dot-product attention of several heads, products through BLAS.
enum Attention {
    /// Scores per block of query rows (384 KiB, 64 rows of 1500): a block's scores stay in L2 from the first
    /// product through the softmax to the second (measured 14 % faster than whole 9 MB score matrices).
    private static let scoreBlockFloats = 96 * 1024

    /// For each head h: `out_h = softmax(scale · Q_h K_hᵀ + mask) V_h`, where Q has `rows` rows and K, V
    /// have `length` rows; heads are column blocks of width `headDim`, head h of K starting `h · keyHeadStride`
    /// floats after `key` (default `headDim`: heads side by side in each row) and likewise for V.
    /// With `causalStart`, query row i sees keys `0 ... causalStart + i` only.
    /// `scores` is scratch for the probabilities of a head's block of query rows;
    /// `onScores`, if given, sees each head's raw scaled scores before the softmax (heads then run in order).
    /// With `parallel`, large attention runs groups of heads on separate threads, each with its own scores.
    static func attend(query q: UnsafePointer<Float>, queryStride: Int, rows: Int,
                       key k: UnsafePointer<Float>, keyStride: Int,
                       value v: UnsafePointer<Float>, valueStride: Int, length: Int,
                       heads: Int, headDim: Int, keyHeadStride: Int? = nil, valueHeadStride: Int? = nil,
                       causalStart: Int? = nil,
                       output out: UnsafeMutablePointer<Float>, outputStride: Int,
                       scores: Buffer,
                       onScores: ((_ head: Int, _ scores: UnsafePointer<Float>) -> Void)? = nil,
                       parallel: Parallel = .serial) {
        let scale = 1 / Float(headDim).squareRoot()
        // Split by heads when there is enough work per head to pay for the hand-off (the decoder's cross-attention
        // over 1500 frames is; its self-attention over a few cached tokens is not).
        let threads = onScores == nil && rows * length * headDim >= 64 * 1024 ? parallel : .serial
        // Query rows go through in blocks whose scores stay in the core's L2 cache between the two products and
        // the softmax (`onScores` needs a head's whole score matrix at once).
        let blockRows = onScores == nil ? Swift.min(rows, Swift.max(1, Self.scoreBlockFloats / length)) : rows
        let perBlock = blockRows * length
        let space = scores.reserve(threads.sliceCount(of: heads, minimumSlice: 1) * perBlock)
        threads.forEachSlice(of: heads, minimumSlice: 1) { slice, headRange in
            let s = space + slice * perBlock
            for h in headRange {
                let kh = k + h * (keyHeadStride ?? headDim), vh = v + h * (valueHeadStride ?? headDim)
                var first = 0
                while first < rows {
                    let count = Swift.min(blockRows, rows - first)
                    let qh = q + first * queryStride + h * headDim
                    let oh = out + first * outputStride + h * headDim
                    if count == 1 {
                        BLAS.gemv(m: length, n: headDim, a: kh, lda: keyStride, x: qh, y: s, alpha: scale)
                    } else {
                        BLAS.gemm(m: count, n: length, k: headDim, a: qh, lda: queryStride, b: kh, ldb: keyStride,
                                  transposeB: true, c: s, ldc: length, alpha: scale)
                    }
                    if let causalStart {
                        for r in 0..<count {
                            let visible = causalStart + first + r + 1
                            if visible < length {
                                (s + r * length + visible).update(repeating: -.infinity, count: length - visible)
                            }
                        }
                    }
                    onScores?(h, s)
                    for r in 0..<count { Vector.softmax(s + r * length, count: length) }
                    if count == 1 {
                        BLAS.gemv(m: length, n: headDim, a: vh, lda: valueStride, transpose: true, x: s, y: oh)
                    } else {
                        BLAS.gemm(m: count, n: headDim, k: length, a: s, lda: length, b: vh, ldb: valueStride,
                                  transposeB: false, c: oh, ldc: outputStride)
                    }
                    first += count
                }
            }
        }
    }
}
