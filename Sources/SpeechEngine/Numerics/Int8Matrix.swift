import CVectorKernels

/// A linear layer's weight `W[rows × columns]` in int8 with a factor per row back to weight units (the `int8`
/// compute type's weights, as CTranslate2 stores them), multiplied by a few fp32 rows through the engine's own
/// kernel (`openspeech_vk_int8_product`): each row of X quantized to int8 (one scale per row), exact int32 sums,
/// rescaled to fp32 with the bias.
///
/// For the decoder's products on x86 without VNNI (plain AVX2), where oneDNN 2.6's int8 kernels copy the weights
/// on every few-row product: a step streams a quarter of fp32's bytes, and the sums are the same exact integers
/// oneDNN's VNNI kernels compute, so the results match the int8 type's on VNNI CPUs.
///
/// `@unchecked Sendable`: the weights, factors and bias are written in `init` only and read afterwards.
final class Int8Matrix: @unchecked Sendable {
    let rows: Int, columns: Int
    private let values: UnsafeMutablePointer<Int8>
    private let factors: UnsafeMutablePointer<Float>
    private let bias: Tensor?

    /// int8 weights with their per-row factors back to weight units (`factors[r]` = 1 / CTranslate2's scale).
    init(int8 weights: UnsafePointer<Int8>, factors: UnsafePointer<Float>, rows: Int, columns: Int, bias: Tensor?) {
        self.rows = rows
        self.columns = columns
        self.bias = bias
        values = .allocate(capacity: rows * columns)
        values.update(from: weights, count: rows * columns)
        self.factors = .allocate(capacity: rows)
        self.factors.update(from: factors, count: rows)
    }

    /// fp32 weights quantized per row (`q = round(w · 127 / max|w|)`, as the `int8` type quantizes for oneDNN).
    init(weights: UnsafePointer<Float>, rows: Int, columns: Int, bias: Tensor?) {
        self.rows = rows
        self.columns = columns
        self.bias = bias
        values = .allocate(capacity: rows * columns)
        factors = .allocate(capacity: rows)
        RowQuantization.quantize(weights, rows: 0..<rows, columns: columns, into: values, factors: factors)
    }

    deinit {
        values.deallocate()
        factors.deallocate()
    }

    /// `Y[r, :] = X[r, :] · Wᵀ + b` for the `inputRows` rows of X (`inputRows × columns`) into Y
    /// (`inputRows × rows`), or `Y +=` with `accumulate`. Large matrices are split by W's rows over `parallel`.
    func multiply(_ x: UnsafePointer<Float>, rows inputRows: Int, into y: UnsafeMutablePointer<Float>,
                  accumulate: Bool = false, scratch: Buffer, parallel: Parallel = .serial) {
        guard inputRows > 0 else { return }
        let quantizedFloats = (inputRows * columns + 3) / 4
        let space = scratch.reserve(quantizedFloats + inputRows)
        let quantized = UnsafeMutableRawPointer(space).assumingMemoryBound(to: Int8.self)
        let rowFactors = space + quantizedFloats
        RowQuantization.quantize(x, rows: 0..<inputRows, columns: columns, into: quantized, factors: rowFactors)
        let minimumSlice = Swift.max(64, Self.minimumWeightsPerThread / columns)
        let values = UnsafePointer(values), factors = UnsafePointer(factors), columns = columns, total = rows
        let bias = bias?.pointer
        parallel.forEachSlice(of: rows, minimumSlice: minimumSlice) { _, range in
            Self.product(weights: values, factors: factors, columns: columns, x: quantized, xFactors: rowFactors,
                         count: inputRows, rows: range, bias: bias, into: y, stride: total, accumulate: accumulate)
        }
    }

    /// `y[m·stride + n] (=, +=) (Σ_k x[m,k]·W[n,k]) · factors[n] · xFactors[m] + bias[n]` for the `count` int8 rows
    /// of x (values in -127...127) and W's rows `rows`: the kernel at the process's instruction-set level.
    static func product(weights: UnsafePointer<Int8>, factors: UnsafePointer<Float>, columns: Int, x: UnsafePointer<Int8>,
                        xFactors: UnsafePointer<Float>, count: Int, rows: Range<Int>, bias: UnsafePointer<Float>?,
                        into y: UnsafeMutablePointer<Float>, stride: Int, accumulate: Bool) {
        openspeech_vk_int8_product(weights, factors, columns, x, xFactors, count, rows.lowerBound, rows.upperBound, bias,
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
