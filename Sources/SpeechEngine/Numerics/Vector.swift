import CVectorKernels

/// Elementwise and row-wise kernels over raw float buffers. The loops are C kernels compiled per instruction-set
/// level and chosen at run time (`VectorKernels`), 16 lanes at a time in a fixed order: the same bits on every CPU.
enum Vector {
    @inline(__always) static func load(_ p: UnsafePointer<Float>) -> SIMD16<Float> {
        UnsafeRawPointer(p).loadUnaligned(as: SIMD16<Float>.self)
    }

    @inline(__always) static func store(_ v: SIMD16<Float>, _ p: UnsafeMutablePointer<Float>) {
        UnsafeMutableRawPointer(p).storeBytes(of: v, as: SIMD16<Float>.self)
    }

    /// `y[i] += x[i]`.
    static func add(_ x: UnsafePointer<Float>, to y: UnsafeMutablePointer<Float>, count: Int) {
        openspeech_vk_add(x, y, count)
    }

    /// Adds `row` (length `columns`) to each of the `rows` rows of `y`.
    static func addRows(_ row: UnsafePointer<Float>, to y: UnsafeMutablePointer<Float>, rows: Int, columns: Int) {
        for r in 0..<rows { add(row, to: y + r * columns, count: columns) }
    }

    /// `y[i] *= factor`.
    static func scale(_ y: UnsafeMutablePointer<Float>, by factor: Float, count: Int) {
        openspeech_vk_scale(y, factor, count)
    }

    /// Layer normalisation of each row: `(x − mean) / sqrt(var + eps) · gamma + beta`.
    static func layerNorm(_ x: UnsafePointer<Float>, rows: Int, columns n: Int, gamma: Tensor, beta: Tensor,
                          into out: UnsafeMutablePointer<Float>, epsilon: Float = 1e-5, parallel: Parallel = .serial) {
        let g = gamma.pointer, b = beta.pointer
        parallel.forEachSlice(of: rows, minimumSlice: 256) { _, slice in
            openspeech_vk_layer_norm(x, slice.lowerBound, slice.upperBound, n, g, b, out, epsilon)
        }
    }

    /// Largest element.
    static func max(_ x: UnsafePointer<Float>, count: Int) -> Float {
        openspeech_vk_max(x, count)
    }

    /// In place `x[i] = exp(x[i] − shift)`; returns the sum.
    @discardableResult
    static func expShifted(_ x: UnsafeMutablePointer<Float>, count: Int, shift: Float) -> Float {
        openspeech_vk_exp_shifted(x, count, shift)
    }

    /// In place softmax of one row.
    static func softmax(_ x: UnsafeMutablePointer<Float>, count: Int) {
        openspeech_vk_softmax(x, count)
    }

    /// log(Σ exp(x[i])) without overflow; reads only.
    static func logSumExp(_ x: UnsafePointer<Float>, count: Int) -> Float {
        let m = max(x, count: count)
        if m == -.infinity { return -.infinity }
        return m + Float.log(openspeech_vk_exp_sum(x, count, m))
    }

    /// In place GELU, `x · ½(1 + erf(x/√2))` (the exact form Whisper uses).
    static func gelu(_ x: UnsafeMutablePointer<Float>, count: Int) {
        openspeech_vk_gelu(x, count)
    }
}

extension Float {
    /// Natural logarithm (scalar, for per-row reductions only).
    @inline(__always) static func log(_ x: Float) -> Float { Float(libmLog(Double(x))) }
}
