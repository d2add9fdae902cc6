import CVectorKernels

/// Conversions of fp32 rows for low-precision products: symmetric int8 with one scale per row (CTranslate2's
/// scheme: `q = round(x · 127 / max|x|)`), bf16 rounding, and the int8 results' return to fp32.
enum RowQuantization {
    /// Rows `rows` of `x` (`columns` wide) as int8 into the same rows of `q`, with `factors[r] = max|x_r| / 127`
    /// (what one unit of row r's int8 values is worth; 1 for an all-zero row).
    static func quantize(_ x: UnsafePointer<Float>, rows: Range<Int>, columns: Int, into q: UnsafeMutablePointer<Int8>,
                         factors: UnsafeMutablePointer<Float>) {
        // q = round(x · 127 / max|x|), ties to even (adding 1.5·2^23 rounds in the low mantissa bits).
        openspeech_vk_quantize_rows(x, rows.lowerBound, rows.upperBound, columns, q, factors)
    }

    /// `count` floats rounded to bf16 (to nearest, ties to even; NaN stays NaN).
    static func roundToBFloat16(_ x: UnsafePointer<Float>, into out: UnsafeMutablePointer<UInt16>, count: Int) {
        for i in 0..<count {
            let bits = x[i].bitPattern
            let rounded = bits &+ 0x7FFF &+ ((bits >> 16) & 1)
            out[i] = x[i].isNaN ? UInt16(bits >> 16) | 0x40 : UInt16(truncatingIfNeeded: rounded >> 16)
        }
    }

    /// `y[r, c] = products[r, c] · rowFactors[r] + bias[c]` (or `y +=` with `accumulate`) over `rows × columns`,
    /// rows `stride` apart: int8 products (already scaled per column) back to fp32 units.
    static func rescale(_ products: UnsafePointer<Float>, rows: Range<Int>, columns: Range<Int>, stride: Int,
                        rowFactors: UnsafePointer<Float>, bias: UnsafePointer<Float>?, into y: UnsafeMutablePointer<Float>,
                        accumulate: Bool) {
        openspeech_vk_rescale(products, rows.lowerBound, rows.upperBound, columns.lowerBound, columns.upperBound, stride,
                              rowFactors, bias, y, accumulate ? 1 : 0)
    }
}
