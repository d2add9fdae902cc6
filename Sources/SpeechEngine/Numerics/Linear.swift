/// A linear layer `y = x · Wᵀ + b` with fp32 inputs and outputs. The weight is in the model's compute type:
/// packed for oneDNN (fp32, bf16 or int8); int8 for the engine's own kernel (the decoder's, on AVX2 without VNNI);
/// or for the `float16` type and builds without oneDNN, fp16 (exact when the file stores fp16, and always in the
/// decoder, whose few rows per step are bound by the bytes streamed) or fp32.
struct Linear: Sendable {
    enum Weight: Sendable {
        case full(Tensor)
        case half(HalfMatrix)
        /// int8 for the engine's own few-row kernel (bias included).
        case int8(Int8Matrix)
        /// 8-bit weights with one scale and zero point, fp32 inputs (bias included).
        case weightInt8(WeightInt8Matrix)
        #if canImport(CDNNL)
        /// Bias included.
        case packed(PackedMatrix)
        #endif
    }

    let weight: Weight
    let bias: Tensor?

    var outputs: Int {
        switch weight {
        case .full(let t): t.shape[0]
        case .half(let h): h.rows
        case .int8(let q): q.rows
        case .weightInt8(let q): q.rows
        #if canImport(CDNNL)
        case .packed(let p): p.rows
        #endif
        }
    }

    var inputs: Int {
        switch weight {
        case .full(let t): t.shape[1]
        case .half(let h): h.columns
        case .int8(let q): q.columns
        case .weightInt8(let q): q.columns
        #if canImport(CDNNL)
        case .packed(let p): p.columns
        #endif
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
            if let bias { Vector.addRows(bias.pointer, to: y, rows: rows, columns: h.rows) }
        case .int8(let q):
            q.multiply(x, rows: rows, into: y, accumulate: accumulate, scratch: scratch, parallel: parallel)
        case .weightInt8(let q):
            q.multiply(x, rows: rows, into: y, accumulate: accumulate, parallel: parallel)
        #if canImport(CDNNL)
        case .packed(let p):
            p.multiply(x, rows: rows, into: y, accumulate: accumulate, scratch: scratch, parallel: parallel)
        #endif
        }
    }
}
