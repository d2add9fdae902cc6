/// A linear layer `y = x · Wᵀ + b`, computed in fp32. The weight is kept in fp16 when that is exact (the
/// file stores fp16) or in the decoder (whose few rows per step are bound by the bytes streamed); else fp32.
struct Linear: Sendable {
    enum Weight: Sendable {
        case full(Tensor)
        case half(HalfMatrix)
    }

    let weight: Weight
    let bias: Tensor

    var outputs: Int {
        switch weight {
        case .full(let t): t.shape[0]
        case .half(let h): h.rows
        }
    }

    var inputs: Int {
        switch weight {
        case .full(let t): t.shape[1]
        case .half(let h): h.columns
        }
    }

    /// `y = x · Wᵀ + b` for `rows` rows, or `y += x · Wᵀ + b` with `accumulate` (a residual connection).
    func apply(_ x: UnsafePointer<Float>, rows: Int, into y: UnsafeMutablePointer<Float>, accumulate: Bool = false,
               scratch: Buffer, parallel: Parallel) {
        switch weight {
        case .full(let t):
            BLAS.linear(x, rows: rows, weight: t, bias: bias, into: y, accumulate: accumulate, parallel: parallel)
        case .half(let h):
            h.multiply(x, rows: rows, into: y, accumulate: accumulate, scratch: scratch, parallel: parallel)
            Vector.addRows(bias.pointer, to: y, rows: rows, columns: h.rows)
        }
    }
}
