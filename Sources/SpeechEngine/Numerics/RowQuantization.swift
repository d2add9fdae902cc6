/// Conversions of fp32 rows for low-precision products: symmetric int8 with one scale per row (CTranslate2's
/// scheme: `q = round(x · 127 / max|x|)`), bf16 rounding, and the int8 results' return to fp32.
enum RowQuantization {
    /// Rows `rows` of `x` (`columns` wide) as int8 into the same rows of `q`, with `factors[r] = max|x_r| / 127`
    /// (what one unit of row r's int8 values is worth; 1 for an all-zero row).
    static func quantize(_ x: UnsafePointer<Float>, rows: Range<Int>, columns: Int, into q: UnsafeMutablePointer<Int8>,
                         factors: UnsafeMutablePointer<Float>) {
        for r in rows {
            let row = x + r * columns, out = q + r * columns
            var largest = SIMD16<Float>(), i = 0
            while i + 16 <= columns {
                let v = UnsafeRawPointer(row + i).loadUnaligned(as: SIMD16<Float>.self)
                let magnitude = unsafeBitCast(unsafeBitCast(v, to: SIMD16<UInt32>.self) & 0x7FFF_FFFF, to: SIMD16<Float>.self)
                largest = largest.replacing(with: magnitude, where: magnitude .> largest)
                i += 16
            }
            var amax = largest.max()
            while i < columns { amax = Swift.max(amax, abs(row[i])); i += 1 }
            let scale: Float = amax > 0 ? 127 / amax : 1
            factors[r] = amax > 0 ? amax / 127 : 1
            for j in 0..<columns {
                // Adding 1.5·2^23 rounds to the nearest integer (ties to even) in the low mantissa bits.
                let shifted = row[j] * scale + 12_582_912
                out[j] = Int8(truncatingIfNeeded: Int32(bitPattern: shifted.bitPattern) &- 0x4B40_0000)
            }
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

    /// `y[r, c] = products[r, c] · rowFactors[r] + bias[c]` (or `y +=` with `accumulate`) over `rows × columns`,
    /// rows `stride` apart: int8 products (already scaled per column) back to fp32 units.
    static func rescale(_ products: UnsafePointer<Float>, rows: Range<Int>, columns: Range<Int>, stride: Int,
                        rowFactors: UnsafePointer<Float>, bias: UnsafePointer<Float>?, into y: UnsafeMutablePointer<Float>,
                        accumulate: Bool) {
        for r in rows {
            let factor = rowFactors[r], p = products + r * stride, out = y + r * stride
            switch (bias, accumulate) {
            case (let b?, true): for c in columns { out[c] += p[c] * factor + b[c] }
            case (let b?, false): for c in columns { out[c] = p[c] * factor + b[c] }
            case (nil, true): for c in columns { out[c] += p[c] * factor }
            case (nil, false): for c in columns { out[c] = p[c] * factor }
            }
        }
    }
}
