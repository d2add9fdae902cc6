/// A linear layer `y = x · Wᵀ + b`. The weight is fp32 for the encoder's large batches (BLAS `sgemm`)
/// or fp16 for the decoder's few rows per step (the half kernel streams half the bytes, and a beam's
/// rows share one pass over the weight).
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

    /// `y += x · Wᵀ + b` (a residual connection).
    func applyAdding(_ x: UnsafePointer<Float>, rows: Int, to y: UnsafeMutablePointer<Float>, scratch: Buffer,
                     parallel: Parallel) {
        apply(x, rows: rows, into: y, accumulate: true, scratch: scratch, parallel: parallel)
    }
}
