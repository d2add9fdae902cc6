/// Scaled dot-product attention of several heads, products through BLAS.
enum Attention {
    /// For each head h: `out_h = softmax(scale · Q_h K_hᵀ + mask) V_h`, where Q has `rows` rows and K, V
    /// have `length` rows; heads are contiguous column blocks of width `headDim` in each matrix.
    /// With `causalStart`, query row i sees keys `0 ... causalStart + i` only.
    /// `scores` receives each head's probabilities (rows × length) and is scratch between heads;
    /// `onScores`, if given, sees each head's raw scaled scores before the softmax (heads then run in order).
    /// With `parallel`, large attention runs groups of heads on separate threads, each with its own scores.
    static func attend(query q: UnsafePointer<Float>, queryStride: Int, rows: Int,
                       key k: UnsafePointer<Float>, keyStride: Int,
                       value v: UnsafePointer<Float>, valueStride: Int, length: Int,
                       heads: Int, headDim: Int, causalStart: Int? = nil,
                       output out: UnsafeMutablePointer<Float>, outputStride: Int,
                       scores: Buffer,
                       onScores: ((_ head: Int, _ scores: UnsafePointer<Float>) -> Void)? = nil,
                       parallel: Parallel = .serial) {
        let scale = 1 / Float(headDim).squareRoot()
        // Split by heads when there is enough work per head to pay for the hand-off (the decoder's cross-attention
        // over 1500 frames is; its self-attention over a few cached tokens is not).
        let threads = onScores == nil && rows * length * headDim >= 64 * 1024 ? parallel : .serial
        let perHead = rows * length
        let space = scores.reserve(threads.sliceCount(of: heads, minimumSlice: 1) * perHead)
        threads.forEachSlice(of: heads, minimumSlice: 1) { slice, headRange in
            let s = space + slice * perHead
            for h in headRange {
                let qh = q + h * headDim, kh = k + h * headDim, vh = v + h * headDim
                if rows == 1 {
                    BLAS.gemv(m: length, n: headDim, a: kh, lda: keyStride, x: qh, y: s, alpha: scale)
                } else {
                    BLAS.gemm(m: rows, n: length, k: headDim, a: qh, lda: queryStride, b: kh, ldb: keyStride,
                              transposeB: true, c: s, ldc: length, alpha: scale)
                }
                if let causalStart {
                    for r in 0..<rows {
                        let visible = causalStart + r + 1
                        if visible < length { (s + r * length + visible).update(repeating: -.infinity, count: length - visible) }
                    }
                }
                onScores?(h, s)
                for r in 0..<rows { Vector.softmax(s + r * length, count: length) }
                if rows == 1 {
                    BLAS.gemv(m: length, n: headDim, a: vh, lda: valueStride, transpose: true, x: s, y: out + h * headDim)
                } else {
                    BLAS.gemm(m: rows, n: headDim, k: length, a: s, lda: length, b: vh, ldb: valueStride,
                              transposeB: false, c: out + h * headDim, ldc: outputStride)
                }
            }
        }
    }
}
