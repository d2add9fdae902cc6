import CVectorKernels

/// Conversions of fp32 rows for low-precision products: symmetric int8 with one scale per row, computed and rounded
/// as CTranslate2 does on x86 (so that `int8` transcripts follow faster-whisper's int8 ones), bf16 rounding, and the
/// int8 results' return to fp32.
enum RowQuantization {
    /// Rows `rows` of `x` (`columns` wide) as int8 into the same rows of `q`, with CTranslate2's per-row scale
    /// `scales[r] = 127 / max|x_r|` (1 for an all-zero row). Weights (`activations` false) round `x · scale` to the
    /// nearest integer, ties to even, as CTranslate2 quantizes them at load. Activations round as CTranslate2's
    /// u8-shifted inputs do: `round(fma(x, scale, 128)) - 128` (its u8 × s8 products with the shift compensated give
    /// the same sums as these values in s8 × s8).
    static func quantize(_ x: UnsafePointer<Float>, rows: Range<Int>, columns: Int, into q: UnsafeMutablePointer<Int8>,
                         scales: UnsafeMutablePointer<Float>, activations: Bool) {
        openspeech_vk_quantize_rows(x, rows.lowerBound, rows.upperBound, columns, q, scales, activations ? 1 : 0)
    }

    /// `count` int8 values as `q + 128` in u8, in place (flipping the sign bit is that addition).
    static func shiftToUnsigned(_ q: UnsafeMutablePointer<Int8>, count: Int) {
        let bytes = UnsafeMutableRawPointer(q), words = count / 8
        for i in 0..<words {
            let word = bytes.loadUnaligned(fromByteOffset: 8 * i, as: UInt64.self)
            bytes.storeBytes(of: word ^ 0x8080_8080_8080_8080, toByteOffset: 8 * i, as: UInt64.self)
        }
        for i in words * 8 ..< count { q[i] = Int8(bitPattern: UInt8(bitPattern: q[i]) ^ 0x80) }
    }

    /// `products[r, c] -= compensation[c]` over `rows × columns`, rows `stride` apart (wrapping, as the int32 sums do).
    static func subtract(_ compensation: UnsafePointer<Int32>, from products: UnsafeMutablePointer<Int32>, rows: Range<Int>,
                         columns: Range<Int>, stride: Int) {
        for r in rows {
            let row = products + r * stride
            for c in columns { row[c] &-= compensation[c] }
        }
    }

    /// `count` floats rounded to bf16 (to nearest, ties to even; NaN stays NaN).
    static func roundToBFloat16(_ x: UnsafePointer<Float>, into out: UnsafeMutablePointer<UInt16>, count: Int) {
        for i in 0..<count {
            let bits = x[i].bitPattern
            let rounded = bits &+ 0x7FFF &+ ((bits >> 16) & 1)
            out[i] = x[i].isNaN ? UInt16(bits >> 16) | 0x40 : UInt16(truncatingIfNeeded: rounded >> 16)
        }
    }

    /// `y[r, c] = (Float(products[r, c]) · (1 / rowScales[r])) / columnScales[c] + bias[c]` (or `y +=` with
    /// `accumulate`) over `rows × columns`, rows `stride` apart: int32 products back to fp32 units in CTranslate2's
    /// order of operations (the rows' and the weights' scales as `quantize` makes them).
    static func rescale(_ products: UnsafePointer<Int32>, rows: Range<Int>, columns: Range<Int>, stride: Int,
                        rowScales: UnsafePointer<Float>, columnScales: UnsafePointer<Float>, bias: UnsafePointer<Float>?,
                        into y: UnsafeMutablePointer<Float>, accumulate: Bool) {
        openspeech_vk_rescale(products, rows.lowerBound, rows.upperBound, columns.lowerBound, columns.upperBound, stride,
                              rowScales, columnScales, bias, y, accumulate ? 1 : 0)
    }
}
