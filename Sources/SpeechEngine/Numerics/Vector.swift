/// Elementwise and row-wise kernels over raw float buffers, in `SIMD16<Float>` with a scalar tail.
enum Vector {
    @inline(__always) static func load(_ p: UnsafePointer<Float>) -> SIMD16<Float> {
        UnsafeRawPointer(p).loadUnaligned(as: SIMD16<Float>.self)
    }

    @inline(__always) static func store(_ v: SIMD16<Float>, _ p: UnsafeMutablePointer<Float>) {
        UnsafeMutableRawPointer(p).storeBytes(of: v, as: SIMD16<Float>.self)
    }

    /// `y[i] += x[i]`.
    static func add(_ x: UnsafePointer<Float>, to y: UnsafeMutablePointer<Float>, count: Int) {
        var i = 0
        while i + 16 <= count { store(load(y + i) + load(x + i), y + i); i += 16 }
        while i < count { y[i] += x[i]; i += 1 }
    }

    /// Adds `row` (length `columns`) to each of the `rows` rows of `y`.
    static func addRows(_ row: UnsafePointer<Float>, to y: UnsafeMutablePointer<Float>, rows: Int, columns: Int) {
        for r in 0..<rows { add(row, to: y + r * columns, count: columns) }
    }

    /// `y[i] *= factor`.
    static func scale(_ y: UnsafeMutablePointer<Float>, by factor: Float, count: Int) {
        var i = 0
        while i + 16 <= count { store(load(y + i) * factor, y + i); i += 16 }
        while i < count { y[i] *= factor; i += 1 }
    }

    /// Layer normalisation of each row: `(x − mean) / sqrt(var + eps) · gamma + beta`.
    static func layerNorm(_ x: UnsafePointer<Float>, rows: Int, columns n: Int, gamma: Tensor, beta: Tensor,
                          into out: UnsafeMutablePointer<Float>, epsilon: Float = 1e-5, parallel: Parallel = .serial) {
        parallel.forEachSlice(of: rows, minimumSlice: 256) { _, slice in
            layerNorm(x, rows: slice, columns: n, gamma: gamma, beta: beta, into: out, epsilon: epsilon)
        }
    }

    private static func layerNorm(_ x: UnsafePointer<Float>, rows: Range<Int>, columns n: Int, gamma: Tensor,
                                  beta: Tensor, into out: UnsafeMutablePointer<Float>, epsilon: Float) {
        let g = gamma.pointer, b = beta.pointer
        for r in rows {
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
            let inv = 1 / (squares / Float(n) + epsilon).squareRoot()
            i = 0
            while i + 16 <= n { store((load(xr + i) - mean) * inv * load(g + i) + load(b + i), yr + i); i += 16 }
            while i < n { yr[i] = (xr[i] - mean) * inv * g[i] + b[i]; i += 1 }
        }
    }

    /// Largest element.
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

    /// In place `x[i] = exp(x[i] − shift)`; returns the sum.
    @discardableResult
    static func expShifted(_ x: UnsafeMutablePointer<Float>, count: Int, shift: Float) -> Float {
        var acc = SIMD16<Float>(), i = 0
        while i + 16 <= count { let e = FastMath.exp(load(x + i) - shift); store(e, x + i); acc += e; i += 16 }
        if i < count {
            var tail = SIMD16<Float>(repeating: -.infinity)
            for j in i..<count { tail[j - i] = x[j] }
            let e = FastMath.exp(tail - shift)
            for j in i..<count { x[j] = e[j - i] }
            acc += e
        }
        return acc.sum()
    }

    /// In place softmax of one row.
    static func softmax(_ x: UnsafeMutablePointer<Float>, count: Int) {
        let m = max(x, count: count)
        let sum = expShifted(x, count: count, shift: m)
        scale(x, by: 1 / sum, count: count)
    }

    /// log(Σ exp(x[i])) without overflow; reads only.
    static func logSumExp(_ x: UnsafePointer<Float>, count: Int) -> Float {
        let m = max(x, count: count)
        if m == -.infinity { return -.infinity }
        var acc = SIMD16<Float>(), i = 0
        while i + 16 <= count { acc += FastMath.exp(load(x + i) - m); i += 16 }
        if i < count {
            var tail = SIMD16<Float>(repeating: -.infinity)
            for j in i..<count { tail[j - i] = x[j] }
            acc += FastMath.exp(tail - m)
        }
        return m + Float.log(acc.sum())
    }

    /// In place GELU, `x · ½(1 + erf(x/√2))` (the exact form Whisper uses).
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
}

extension Float {
    /// Natural logarithm (scalar, for per-row reductions only).
    @inline(__always) static func log(_ x: Float) -> Float { Float(libmLog(Double(x))) }
}
