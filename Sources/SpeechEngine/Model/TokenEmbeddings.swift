/// The decoder's token embeddings, in the form the compute type looks them up in: half precision (exact for fp16
/// models), or for `int8` the int8 rows CTranslate2 quantizes the embedding matrix to and looks tokens up in.
enum TokenEmbeddings: Sendable {
    case half(HalfMatrix)
    case int8(QuantizedRows)

    /// Token `index`'s embedding as fp32 into `destination` (the model width).
    func row(_ index: Int, into destination: UnsafeMutablePointer<Float>) {
        switch self {
        case .half(let h): h.row(index, into: destination)
        case .int8(let q): q.row(index, into: destination)
        }
    }
}
