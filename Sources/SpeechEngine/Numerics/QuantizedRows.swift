/// A matrix of int8 rows, each with CTranslate2's scale (`w ≈ q / scale`), read one row at a time as fp32: the token
/// embeddings of the `int8` compute type. CTranslate2 quantizes the embedding matrix like every other weight and looks
/// tokens up in the quantized matrix (`q · (1 / scale)`), so the decoder's inputs carry the same rounding as
/// faster-whisper's at int8; it also halves the embeddings' memory beside fp16.
///
/// `@unchecked Sendable`: the values and scales are written in `init` only and read afterwards.
final class QuantizedRows: @unchecked Sendable {
    let rows: Int, columns: Int
    private let values: UnsafeMutablePointer<Int8>
    /// Per row, 1 / CTranslate2's scale (its `r_scale`, computed the way it computes it).
    private let inverses: UnsafeMutablePointer<Float>

    /// int8 rows with CTranslate2's per-row scales.
    init(int8 values: UnsafePointer<Int8>, scales: UnsafePointer<Float>, rows: Int, columns: Int) {
        self.rows = rows
        self.columns = columns
        self.values = .allocate(capacity: rows * columns)
        self.values.update(from: values, count: rows * columns)
        inverses = .allocate(capacity: rows)
        for r in 0..<rows { inverses[r] = 1 / scales[r] }
    }

    /// fp32 rows quantized as CTranslate2 quantizes weights at load (`RowQuantization.quantize`).
    convenience init(weights: UnsafePointer<Float>, rows: Int, columns: Int) {
        let values = UnsafeMutablePointer<Int8>.allocate(capacity: rows * columns)
        let scales = UnsafeMutablePointer<Float>.allocate(capacity: rows)
        defer { values.deallocate(); scales.deallocate() }
        RowQuantization.quantize(weights, rows: 0..<rows, columns: columns, into: values, scales: scales, activations: false)
        self.init(int8: values, scales: scales, rows: rows, columns: columns)
    }

    deinit {
        values.deallocate()
        inverses.deallocate()
    }

    /// Row `index` as fp32 into `destination` (`columns` floats): `Float(q) · (1 / scale)`.
    func row(_ index: Int, into destination: UnsafeMutablePointer<Float>) {
        let source = values + index * columns, inverse = inverses[index]
        for c in 0..<columns { destination[c] = Float(source[c]) * inverse }
    }
}
