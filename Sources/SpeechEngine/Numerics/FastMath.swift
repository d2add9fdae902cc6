/// Polynomial SIMD versions of exp and erf (no scalar libm calls in hot loops).
enum FastMath {
    /// e^x for each lane; relative error below 2e-7 over the float range, 0 below -87.
    @inline(__always)
    static func exp(_ x: SIMD16<Float>) -> SIMD16<Float> {
        var v = x.replacing(with: 88.3762626647949, where: x .> 88.3762626647949)
        v = v.replacing(with: -87.3365447505531, where: v .< -87.3365447505531)
        // n = round(x / ln2) with the 1.5·2^23 trick; r = x − n·ln2 in two parts.
        let magic = SIMD16<Float>(repeating: 12582912.0)
        let t = v * 1.44269504088896341 + magic
        let n = t - magic
        var r = v - n * 0.693359375
        r = r - n * -2.12194440e-4
        // e^r on [−ln2/2, ln2/2], degree-6 polynomial (Cephes expf).
        var p = SIMD16<Float>(repeating: 1.9875691500e-4)
        p = p * r + 1.3981999507e-3
        p = p * r + 8.3334519073e-3
        p = p * r + 4.1665795894e-2
        p = p * r + 1.6666665459e-1
        p = p * r + 5.0000001201e-1
        p = p * (r * r) + r + 1
        // 2^n from the rounded integer held in t's low mantissa bits.
        let bits = unsafeBitCast(t, to: SIMD16<Int32>.self) &- 0x4B40_0000
        let scale = unsafeBitCast((bits &+ 127) &<< 23, to: SIMD16<Float>.self)
        let result = p * scale
        return result.replacing(with: 0, where: x .< -87.3365447505531)
    }

    /// erf(x) for each lane, absolute error below 2e-7 (Abramowitz & Stegun 7.1.26 refined form).
    @inline(__always)
    static func erf(_ x: SIMD16<Float>) -> SIMD16<Float> {
        // erf(x) = 1 − t·P(t)·e^(−x²) with t = 1/(1 + p|x|); A&S 7.1.26 has error 1.5e-7.
        let sign = unsafeBitCast(x, to: SIMD16<UInt32>.self) & 0x8000_0000
        let a = unsafeBitCast(unsafeBitCast(x, to: SIMD16<UInt32>.self) & 0x7FFF_FFFF, to: SIMD16<Float>.self)
        let t = 1 / (a * 0.3275911 + 1)
        var poly = SIMD16<Float>(repeating: 1.061405429)
        poly = poly * t - 1.453152027
        poly = poly * t + 1.421413741
        poly = poly * t - 0.284496736
        poly = poly * t + 0.254829592
        poly = poly * t
        let y = 1 - poly * exp(-(a * a))
        return unsafeBitCast(unsafeBitCast(y, to: SIMD16<UInt32>.self) | sign, to: SIMD16<Float>.self)
    }
}
