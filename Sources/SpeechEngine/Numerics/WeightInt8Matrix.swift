import CVectorKernels

/// A linear layer's weight `W[rows × columns]` in 8 bits with one scale and zero point for the whole matrix
/// (weight-only quantization, as ONNX Runtime's Moonshine graphs store their products: `w = q × scale + zeroPoint`),
/// multiplied by a few fp32 rows through the engine's own kernel (`openspeech_vk_weight_int8_dot_rows`): each weight is
/// dequantized in float32 as the graph does and multiplied by the fp32 inputs, so the products see the graph's values
/// while a decoding step streams a quarter of fp32's bytes.
///
/// `@unchecked Sendable`: the values and bias are written in `init` only and read afterwards.
final class WeightInt8Matrix: @unchecked Sendable {
    let rows: Int, columns: Int
    let scale: Float, zeroPoint: Float
    private let values: UnsafeMutablePointer<Int8>
    private let bias: Tensor?

    /// A matrix whose `rows × columns` values (row-major) `fill` writes into its uninitialised storage.
    init(rows: Int, columns: Int, scale: Float, zeroPoint: Float, bias: Tensor?,
         fill: (UnsafeMutableBufferPointer<Int8>) -> Void) {
        self.rows = rows
        self.columns = columns
        self.scale = scale
        self.zeroPoint = zeroPoint
        self.bias = bias
        values = .allocate(capacity: rows * columns)
        fill(UnsafeMutableBufferPointer(start: values, count: rows * columns))
    }

    deinit { values.deallocate() }

    /// Row `index` dequantized into `out` (an embedding lookup).
    func dequantizeRow(_ index: Int, into out: UnsafeMutablePointer<Float>) {
        let row = values + index * columns
        for c in 0..<columns { out[c] = Float(row[c]) * scale + zeroPoint }
    }

    /// `Y[r, :] = X[r, :] · Wᵀ + b` for the `inputRows` rows of X into Y (`inputRows × rows`), or `Y +=` with
    /// `accumulate`. W's rows are split over `parallel` when there are enough of them.
    func multiply(_ x: UnsafePointer<Float>, rows inputRows: Int, into y: UnsafeMutablePointer<Float>,
                  accumulate: Bool = false, parallel: Parallel = .serial) {
        let values = UnsafePointer(values), columns = columns, total = rows, scale = scale, zero = zeroPoint
        let bias = bias?.pointer
        let minimumSlice = Swift.max(64, Self.minimumWeightsPerThread / Swift.max(columns, 1))
        parallel.forEachSlice(of: total, minimumSlice: minimumSlice) { _, range in
            openspeech_vk_weight_int8_dot_rows(values, columns, scale, zero, x, inputRows, range.lowerBound,
                                               range.upperBound, y, total, accumulate ? 1 : 0)
            if let bias {
                for m in 0..<inputRows {
                    let out = y + m * total
                    for n in range { out[n] += bias[n] }
                }
            }
        }
    }

    /// Weights a thread takes at least (a smaller product stays on one thread: the hand-off costs more).
    static let minimumWeightsPerThread = 256 * 1024
}
