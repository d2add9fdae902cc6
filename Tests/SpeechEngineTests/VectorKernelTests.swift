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

    @Test("layer norm and int8 row quantization: the Swift code's bits at every ISA level", arguments: [37, 384, 512])
    func rows(columns: Int) {
        let rows = 7
        let x = ProductKernelTests.values(rows * columns, seed: 3).map { $0 * 5 }
        let gamma = Tensor(shape: [columns], values: ProductKernelTests.values(columns, seed: 4))
        let beta = Tensor(shape: [columns], values: ProductKernelTests.values(columns, seed: 5))
        var normed = [Float](repeating: 0, count: rows * columns)
        var quantized = [Int8](repeating: 0, count: rows * columns), factors = [Float](repeating: 0, count: rows)
        var zeroRow = x
        for c in 0..<columns { zeroRow[2 * columns + c] = 0 }
        x.withUnsafeBufferPointer { SwiftReference.layerNorm($0.baseAddress!, rows: rows, columns: columns,
                                                             gamma: gamma, beta: beta, into: &normed) }
        zeroRow.withUnsafeBufferPointer { SwiftReference.quantize($0.baseAddress!, rows: rows, columns: columns,
                                                                  into: &quantized, factors: &factors) }
        Self.atEachLevel { level in
            var n = [Float](repeating: 0, count: rows * columns)
            var q = [Int8](repeating: 0, count: rows * columns), f = [Float](repeating: 0, count: rows)
            x.withUnsafeBufferPointer { Vector.layerNorm($0.baseAddress!, rows: rows, columns: columns, gamma: gamma,
                                                         beta: beta, into: &n, parallel: Parallel(threads: 2)) }
            zeroRow.withUnsafeBufferPointer { RowQuantization.quantize($0.baseAddress!, rows: 0..<rows, columns: columns,
                                                                       into: &q, factors: &f) }
            #expect(Self.bits(n) == Self.bits(normed), "layer norm at \(level.name)")
            #expect(q == quantized, "int8 values at \(level.name)")
            #expect(Self.bits(f) == Self.bits(factors), "row factors at \(level.name)")
            #expect(f[2] == 1, "an all-zero row's factor is 1")
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

    static func quantize(_ x: UnsafePointer<Float>, rows: Int, columns: Int, into q: UnsafeMutablePointer<Int8>,
                         factors: UnsafeMutablePointer<Float>) {
        for r in 0..<rows {
            let row = x + r * columns, out = q + r * columns
            var largest = SIMD16<Float>(), i = 0
            while i + 16 <= columns {
                let v = load(row + i)
                let magnitude = unsafeBitCast(unsafeBitCast(v, to: SIMD16<UInt32>.self) & 0x7FFF_FFFF, to: SIMD16<Float>.self)
                largest = largest.replacing(with: magnitude, where: magnitude .> largest)
                i += 16
            }
            var amax = largest.max()
            while i < columns { amax = Swift.max(amax, abs(row[i])); i += 1 }
            let scale: Float = amax > 0 ? 127 / amax : 1
            factors[r] = amax > 0 ? amax / 127 : 1
            for j in 0..<columns {
                let shifted = row[j] * scale + 12_582_912
                out[j] = Int8(truncatingIfNeeded: Int32(bitPattern: shifted.bitPattern) &- 0x4B40_0000)
            }
        }
    }
}
