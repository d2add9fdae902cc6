import Testing
@testable import SpeechEngine

/// The element-wise kernels compiled per instruction-set level (portable, AVX2, AVX-512) against the engine's former
/// Swift `SIMD16` code, kept here as the reference: every level the CPU has gives that code's bits, so transcripts do
/// not depend on the build or the CPU's vector width.
@Suite("Vector kernels", .serialized)
struct VectorKernelTests {
    /// Values in [-8, 8) with the special cases the loops meet: -inf (causal masks), huge, ±0, subnormal.
    static func values(_ count: Int, seed: UInt64) -> [Float] {
        var x = ProductKernelTests.values(count, seed: seed).map { $0 * 8 }
        for (i, v) in [(5, -Float.infinity), (7, 1e30), (9, -0.0), (11, 1e-40), (13, -100), (17, 90)] where i < count {
            x[i] = v
        }
        return x
    }

    /// Lengths with and without a partial 16-lane tail, as the model meets them (1500 frames, 448 tokens, 51864).
    static let lengths = [1, 15, 16, 37, 384, 1500, 51864]

    /// Runs `body` at each level this CPU has, restoring the process's level after.
    static func atEachLevel(_ body: (VectorKernels.Level) -> Void) {
        let saved = VectorKernels.level
        defer { VectorKernels.use(saved) }
        for level in VectorKernels.Level.allCases where level <= VectorKernels.cpuLevel {
            #expect(VectorKernels.use(level) == level)
            body(level)
        }
    }

    static func bits(_ x: [Float]) -> [UInt32] { x.map(\.bitPattern) }

    @Test("softmax, log-sum-exp, max and GELU: the Swift SIMD16 code's bits at every ISA level", arguments: lengths)
    func elementwise(count: Int) {
        let x = Self.values(count, seed: UInt64(count))
        var softmax = x, gelu = x.map { $0 / 4 }
        softmax.withUnsafeMutableBufferPointer { SwiftReference.softmax($0.baseAddress!, count: count) }
        gelu.withUnsafeMutableBufferPointer { SwiftReference.gelu($0.baseAddress!, count: count) }
        let logSumExp = x.withUnsafeBufferPointer { SwiftReference.logSumExp($0.baseAddress!, count: count) }
        let largest = x.withUnsafeBufferPointer { SwiftReference.max($0.baseAddress!, count: count) }
        Self.atEachLevel { level in
            var s = x, g = x.map { $0 / 4 }
            s.withUnsafeMutableBufferPointer { Vector.softmax($0.baseAddress!, count: count) }
            g.withUnsafeMutableBufferPointer { Vector.gelu($0.baseAddress!, count: count) }
            #expect(Self.bits(s) == Self.bits(softmax), "softmax at \(level.name)")
            #expect(Self.bits(g) == Self.bits(gelu), "GELU at \(level.name)")
            x.withUnsafeBufferPointer { p in
                #expect(Vector.logSumExp(p.baseAddress!, count: count).bitPattern == logSumExp.bitPattern, "at \(level.name)")
                #expect(Vector.max(p.baseAddress!, count: count) == largest, "at \(level.name)")
            }
        }
    }

    @Test("layer norm and int8 row quantization (weights and activations): the reference's bits at every ISA level",
          arguments: [37, 384, 512])
    func rows(columns: Int) {
        let rows = 7
        let x = ProductKernelTests.values(rows * columns, seed: 3).map { $0 * 5 }
        let gamma = Tensor(shape: [columns], values: ProductKernelTests.values(columns, seed: 4))
        let beta = Tensor(shape: [columns], values: ProductKernelTests.values(columns, seed: 5))
        var normed = [Float](repeating: 0, count: rows * columns)
        var zeroRow = x
        for c in 0..<columns { zeroRow[2 * columns + c] = 0 }
        x.withUnsafeBufferPointer { SwiftReference.layerNorm($0.baseAddress!, rows: rows, columns: columns,
                                                             gamma: gamma, beta: beta, into: &normed) }
        var expected: [Bool: ([Int8], [Float])] = [:]
        for activations in [false, true] {
            var quantized = [Int8](repeating: 0, count: rows * columns), scales = [Float](repeating: 0, count: rows)
            zeroRow.withUnsafeBufferPointer { SwiftReference.quantize($0.baseAddress!, rows: rows, columns: columns,
                                                                      into: &quantized, scales: &scales,
                                                                      activations: activations) }
            expected[activations] = (quantized, scales)
        }
        Self.atEachLevel { level in
            var n = [Float](repeating: 0, count: rows * columns)
            x.withUnsafeBufferPointer { Vector.layerNorm($0.baseAddress!, rows: rows, columns: columns, gamma: gamma,
                                                         beta: beta, into: &n, parallel: Parallel(threads: 2)) }
            #expect(Self.bits(n) == Self.bits(normed), "layer norm at \(level.name)")
            for activations in [false, true] {
                var q = [Int8](repeating: 0, count: rows * columns), f = [Float](repeating: 0, count: rows)
                zeroRow.withUnsafeBufferPointer { RowQuantization.quantize($0.baseAddress!, rows: 0..<rows, columns: columns,
                                                                           into: &q, scales: &f, activations: activations) }
                #expect(q == expected[activations]!.0, "int8 values at \(level.name), activations \(activations)")
                #expect(Self.bits(f) == Self.bits(expected[activations]!.1), "row scales at \(level.name)")
                #expect(f[2] == 1, "an all-zero row's scale is 1")
            }
        }
    }

    @Test("activations round as CTranslate2's u8-shifted inputs: round(fma(x, s, 128)) − 128, ties to even")
    func shiftedRounding() {
        // Row max 127, so the scale is exactly 1 and x · scale = x. 0.5 + 2⁻²⁴ is above one half, but
        // 128.5 + 2⁻²⁴ rounds to 128.5 in one fp32 rounding (its unit is 2⁻¹⁶ there), which ties to 128: CTranslate2
        // quantizes it to 0 where plain rounding gives 1.
        let above = Float(0.5).nextUp, below = Float(-0.5).nextDown
        let x: [Float] = [127, above, below, 0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 126.5, -127] + [Float](repeating: 0, count: 5)
        let activations: [Int8] = [127, 0, 0, 0, 2, 2, 0, -2, -2, 126, -127] + [Int8](repeating: 0, count: 5)
        let weights: [Int8] = [127, 1, -1, 0, 2, 2, 0, -2, -2, 126, -127] + [Int8](repeating: 0, count: 5)
        Self.atEachLevel { level in
            for (flag, expected) in [(true, activations), (false, weights)] {
                var q = [Int8](repeating: 0, count: x.count), scale: [Float] = [0]
                x.withUnsafeBufferPointer { RowQuantization.quantize($0.baseAddress!, rows: 0..<1, columns: x.count,
                                                                     into: &q, scales: &scale, activations: flag) }
                #expect(q == expected, "activations \(flag) at \(level.name)")
                #expect(scale == [1])
            }
        }
    }

    @Test("fp16 products give the same bits at every ISA level (1, 5 and 600 rows)", arguments: [1, 5, 600])
    func halfProducts(rows: Int) {
        let (matrix, _) = ProductKernelTests.weights()
        let x = ProductKernelTests.values(rows * 256, seed: UInt64(rows))
        var reference: [Float]?
        Self.atEachLevel { level in
            var y = [Float](repeating: 0, count: rows * 96)
            x.withUnsafeBufferPointer {
                matrix.multiply($0.baseAddress!, rows: rows, into: &y, scratch: Buffer(), parallel: Parallel(threads: 2))
            }
            if let reference { #expect(Self.bits(y) == Self.bits(reference), "at \(level.name)") } else { reference = y }
        }
    }

    @Test("ISA limits in oneDNN's spelling cap the level; unknown names and ALL do not")
    func limits() {
        #expect(VectorKernels.level(forLimit: "AVX2") == .avx2)
        #expect(VectorKernels.level(forLimit: "avx2_vnni") == .avx2)
        #expect(VectorKernels.level(forLimit: "AVX512_CORE_VNNI") == .avx512)
        #expect(VectorKernels.level(forLimit: "AVX") == .portable)
        #expect(VectorKernels.level(forLimit: "SSE41") == .portable)
        #expect(VectorKernels.level(forLimit: "ALL") == nil)
        #expect(VectorKernels.level(forLimit: "") == nil)
        #expect(VectorKernels.level(forLimit: "pentium") == nil)
        #expect(VectorKernels.level <= VectorKernels.cpuLevel)
    }
}

/// The engine's element-wise loops as they were in Swift `SIMD16<Float>` (before the per-ISA C kernels): the reference
/// the kernels must equal bit for bit.
private enum SwiftReference {
    static func load(_ p: UnsafePointer<Float>) -> SIMD16<Float> { UnsafeRawPointer(p).loadUnaligned(as: SIMD16<Float>.self) }
    static func store(_ v: SIMD16<Float>, _ p: UnsafeMutablePointer<Float>) {
        UnsafeMutableRawPointer(p).storeBytes(of: v, as: SIMD16<Float>.self)
    }

    static func max(_ x: UnsafePointer<Float>, count: Int) -> Float {
        var best = -Float.infinity, i = 0
        if count >= 16 {
            var acc = SIMD16<Float>(repeating: -.infinity)
            while i + 16 <= count { let v = load(x + i); acc = acc.replacing(with: v, where: v .> acc); i += 16 }
            best = acc.max()
        }
        while i < count { if x[i] > best { best = x[i] }; i += 1 }
        return best
    }

    static func expSum(_ x: UnsafeMutablePointer<Float>?, _ source: UnsafePointer<Float>, count: Int, shift: Float) -> Float {
        var acc = SIMD16<Float>(), i = 0
        while i + 16 <= count {
            let e = FastMath.exp(load(source + i) - shift)
            if let x { store(e, x + i) }
            acc += e; i += 16
        }
        if i < count {
            var tail = SIMD16<Float>(repeating: -.infinity)
            for j in i..<count { tail[j - i] = source[j] }
            let e = FastMath.exp(tail - shift)
            if let x { for j in i..<count { x[j] = e[j - i] } }
            acc += e
        }
        return acc.sum()
    }

    static func softmax(_ x: UnsafeMutablePointer<Float>, count: Int) {
        let sum = expSum(x, x, count: count, shift: max(x, count: count))
        let factor = 1 / sum
        var i = 0
        while i + 16 <= count { store(load(x + i) * factor, x + i); i += 16 }
        while i < count { x[i] *= factor; i += 1 }
    }

    static func logSumExp(_ x: UnsafePointer<Float>, count: Int) -> Float {
        let m = max(x, count: count)
        if m == -.infinity { return -.infinity }
        return m + Float.log(expSum(nil, x, count: count, shift: m))
    }

    static func gelu(_ x: UnsafeMutablePointer<Float>, count: Int) {
        var i = 0
        while i + 16 <= count {
            let v = load(x + i)
            store(v * 0.5 * (1 + FastMath.erf(v * 0.70710678118654752)), x + i)
            i += 16
        }
        if i < count {
            var tail = SIMD16<Float>()
            for j in i..<count { tail[j - i] = x[j] }
            let g = tail * 0.5 * (1 + FastMath.erf(tail * 0.70710678118654752))
            for j in i..<count { x[j] = g[j - i] }
        }
    }

    static func layerNorm(_ x: UnsafePointer<Float>, rows: Int, columns n: Int, gamma: Tensor, beta: Tensor,
                          into out: UnsafeMutablePointer<Float>) {
        let g = gamma.pointer, b = beta.pointer
        for r in 0..<rows {
            let xr = x + r * n, yr = out + r * n
            var acc = SIMD16<Float>(), i = 0
            while i + 16 <= n { acc += load(xr + i); i += 16 }
            var sum = acc.sum()
            while i < n { sum += xr[i]; i += 1 }
            let mean = sum / Float(n)
            acc = SIMD16<Float>(); i = 0
            while i + 16 <= n { let d = load(xr + i) - mean; acc += d * d; i += 16 }
            var squares = acc.sum()
            while i < n { let d = xr[i] - mean; squares += d * d; i += 1 }
            let inv = 1 / (squares / Float(n) + 1e-5).squareRoot()
            i = 0
            while i + 16 <= n { store((load(xr + i) - mean) * inv * load(g + i) + load(b + i), yr + i); i += 16 }
            while i < n { yr[i] = (xr[i] - mean) * inv * g[i] + b[i]; i += 1 }
        }
    }

    /// CTranslate2's per-row int8 quantization (its `quantize_s8`): scale 127 / max|x|; weights round x · scale,
    /// activations (`activations`, shifted into u8 for its u8 × s8 products) round fma(x, scale, 128) and take 128 off.
    static func quantize(_ x: UnsafePointer<Float>, rows: Int, columns: Int, into q: UnsafeMutablePointer<Int8>,
                         scales: UnsafeMutablePointer<Float>, activations: Bool) {
        for r in 0..<rows {
            let row = x + r * columns, out = q + r * columns
            var amax: Float = 0
            for i in 0..<columns { amax = Swift.max(amax, abs(row[i])) }
            let scale: Float = amax > 0 ? 127 / amax : 1
            scales[r] = scale
            for j in 0..<columns {
                if activations {
                    let t = Float(128).addingProduct(row[j], scale)
                    out[j] = Int8(t.rounded(.toNearestOrEven) - 128)
                } else {
                    out[j] = Int8((row[j] * scale).rounded(.toNearestOrEven))
                }
            }
        }
    }
}
