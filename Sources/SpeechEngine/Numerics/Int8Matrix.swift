import CVectorKernels

/// A linear layer's weight `W[rows × columns]` in int8 with CTranslate2's scale per row (the `int8` compute type's
/// weights, as CTranslate2 stores them), multiplied by a few fp32 rows through the engine's own kernel
/// (`openspeech_vk_int8_product`): each row of X quantized to int8 (one scale per row), exact int32 sums, rescaled
/// to fp32 with the bias as `RowQuantization.rescale` does.
///
/// For the decoder's products on x86 without VNNI (plain AVX2), where oneDNN 2.6's int8 kernels copy the weights
/// on every few-row product: a step streams a quarter of fp32's bytes, and the sums are the same exact integers
/// oneDNN's VNNI kernels compute, so the results match the int8 type's on VNNI CPUs.
///
/// `@unchecked Sendable`: the weights, scales and bias are written in `init` only and read afterwards.
final class Int8Matrix: @unchecked Sendable {
    let rows: Int, columns: Int
    private let values: UnsafeMutablePointer<Int8>
    private let scales: UnsafeMutablePointer<Float>
    private let bias: Tensor?

    /// int8 weights with CTranslate2's per-row scales (`w ≈ q / scales[r]`).
    init(int8 weights: UnsafePointer<Int8>, scales: UnsafePointer<Float>, rows: Int, columns: Int, bias: Tensor?) {
        self.rows = rows
        self.columns = columns
        self.bias = bias
        values = .allocate(capacity: rows * columns)
        values.update(from: weights, count: rows * columns)
        self.scales = .allocate(capacity: rows)
        self.scales.update(from: scales, count: rows)
    }

    /// fp32 weights quantized per row as CTranslate2 quantizes them at load (`RowQuantization.quantize`).
    init(weights: UnsafePointer<Float>, rows: Int, columns: Int, bias: Tensor?) {
        self.rows = rows
        self.columns = columns
        self.bias = bias
        values = .allocate(capacity: rows * columns)
        scales = .allocate(capacity: rows)
        RowQuantization.quantize(weights, rows: 0..<rows, columns: columns, into: values, scales: scales, activations: false)
    }

    deinit {
        values.deallocate()
        scales.deallocate()
    }

    /// `Y[r, :] = X[r, :] · Wᵀ + b` for the `inputRows` rows of X (`inputRows × columns`) into Y
    /// (`inputRows × rows`), or `Y +=` with `accumulate`. Large matrices are split by W's rows over `parallel`.
    func multiply(_ x: UnsafePointer<Float>, rows inputRows: Int, into y: UnsafeMutablePointer<Float>,
                  accumulate: Bool = false, scratch: Buffer, parallel: Parallel = .serial) {
        guard inputRows > 0 else { return }
        let quantizedFloats = (inputRows * columns + 3) / 4
        let space = scratch.reserve(quantizedFloats + inputRows)
        let quantized = UnsafeMutableRawPointer(space).assumingMemoryBound(to: Int8.self)
        let rowScales = space + quantizedFloats
        RowQuantization.quantize(x, rows: 0..<inputRows, columns: columns, into: quantized, scales: rowScales,
                                 activations: true)
        let minimumSlice = Swift.max(64, Self.minimumWeightsPerThread / columns)
        let values = UnsafePointer(values), scales = UnsafePointer(scales), columns = columns, total = rows
        let bias = bias?.pointer
        parallel.forEachSlice(of: rows, minimumSlice: minimumSlice) { _, range in
            Self.product(weights: values, scales: scales, columns: columns, x: quantized, xScales: rowScales,
                         count: inputRows, rows: range, bias: bias, into: y, stride: total, accumulate: accumulate)
        }
    }

    /// `y[m·stride + n] (=, +=) (Float(Σ_k x[m,k]·W[n,k]) · (1 / xScales[m])) / scales[n] + bias[n]` for the `count`
    /// int8 rows of x (values in -127...127) and W's rows `rows`: the kernel at the process's instruction-set level.
    static func product(weights: UnsafePointer<Int8>, scales: UnsafePointer<Float>, columns: Int, x: UnsafePointer<Int8>,
                        xScales: UnsafePointer<Float>, count: Int, rows: Range<Int>, bias: UnsafePointer<Float>?,
                        into y: UnsafeMutablePointer<Float>, stride: Int, accumulate: Bool) {
        openspeech_vk_int8_product(weights, scales, columns, x, xScales, count, rows.lowerBound, rows.upperBound, bias,
                                   y, stride, accumulate ? 1 : 0)
    }

    /// Below this many weights (bytes) per thread, a product stays on one thread (the hand-off costs more).
    private static let minimumWeightsPerThread = 512 * 1024

    /// Whether the engine's own int8 kernel runs the decoder's few-row int8 products here: x86 with AVX2 (within
    /// `OPENSPEECH_MAX_CPU_ISA`) where oneDNN's int8 kernels lack VNNI.
    static var replacesOneDNN: Bool {
        MatrixBackend.hasOneDNN && !MatrixBackend.hasVNNI && VectorKernels.level >= .avx2
    }
}
