import CVectorKernels

/// A matrix kept in IEEE half precision (the precision CTranslate2 stores Whisper in, so no value
/// changes), multiplied by fp32 rows: products read half the bytes of fp32 weights, and the model holds
/// them in half the memory.
///
/// `@unchecked Sendable`: the storage is written once in `init` and only read afterwards.
final class HalfMatrix: @unchecked Sendable {
    let rows: Int, columns: Int
    private let storage: UnsafeMutablePointer<UInt16>

    /// A `rows × columns` matrix whose half bits `fill` writes.
    init(rows: Int, columns: Int, fill: (UnsafeMutablePointer<UInt16>) -> Void) {
        precondition(columns % 16 == 0, "HalfMatrix needs a multiple of 16 columns")
        self.rows = rows
        self.columns = columns
        storage = .allocate(capacity: rows * columns)
        fill(storage)
    }

    deinit { storage.deallocate() }

    /// `Y[b, r] = Σ_c W[r, c] · X[b, c]` (or `Y +=` with `accumulate`) for `inputRows` rows X
    /// (`inputRows × columns`) into Y (`inputRows × rows`). Large matrices are split into slices of W's rows
    /// over `parallel`'s threads.
    ///
    /// One row (greedy decoding) is bound by memory bandwidth: a kernel widens the halves as it streams them.
    /// Several rows (a beam, a prompt) are bound by arithmetic, which baseline x86-64 code does at a quarter
    /// of the CPU's vector width: blocks of W are widened to fp32 in cache once and multiplied by BLAS.
    /// Hundreds of rows (the encoder's frames) widen the whole of W first (`multiplyWidened`).
    func multiply(_ x: UnsafePointer<Float>, rows inputRows: Int, into y: UnsafeMutablePointer<Float>,
                  accumulate: Bool = false, scratch: Buffer, parallel: Parallel = .serial) {
        guard inputRows > 0 else { return }
        if inputRows >= Self.widenedWholeInputRows {
            multiplyWidened(x, rows: inputRows, into: y, accumulate: accumulate, scratch: scratch, parallel: parallel)
            return
        }
        let minimumSlice = Swift.max(Self.blockRows, Self.minimumWeightsPerThread / columns)
        let slices = parallel.sliceCount(of: rows, minimumSlice: minimumSlice)
        let space = scratch.reserve(inputRows * columns + (inputRows > 1 ? slices * Self.blockRows * columns : 0))
        // Weights are read as 32-bit lanes holding two halves: lane j of a 16-half chunk has element 2j in
        // its low half and 2j+1 in its high half. Inputs are reordered the same way once: evens, then odds.
        let half = columns / 2
        for b in 0..<inputRows {
            let even = space + b * columns, odd = even + half, source = x + b * columns
            for i in 0..<half { even[i] = source[2 * i]; odd[i] = source[2 * i + 1] }
        }
        let blocks = space + inputRows * columns
        parallel.forEachSlice(of: rows, minimumSlice: minimumSlice) { slice, range in
            if inputRows == 1 {
                multiplyOne(UnsafeRawPointer(space), rows: range, into: y, accumulate: accumulate)
            } else {
                multiplyBlocked(space, count: inputRows, rows: range, into: y, accumulate: accumulate,
                                block: blocks + slice * Self.blockRows * columns)
            }
        }
    }

    /// From this many input rows (the encoder's 1500 frames) W is widened whole for each product.
    private static let widenedWholeInputRows = 512

    /// Many input rows: all of W widened to fp32 in `scratch` (in parallel slices), then one BLAS product with
    /// the same arguments as `BLAS.linear` on an fp32 weight, so the result is that product's, bit for bit.
    /// Widening costs one pass over W per product, small beside the `inputRows`-fold arithmetic; the model
    /// then holds these weights in half the memory.
    private func multiplyWidened(_ x: UnsafePointer<Float>, rows inputRows: Int, into y: UnsafeMutablePointer<Float>,
                                 accumulate: Bool, scratch: Buffer, parallel: Parallel) {
        let widened = scratch.reserve(rows * columns)
        let base = UnsafePointer(storage), columns = columns
        parallel.forEachSlice(of: rows, minimumSlice: Self.blockRows) { _, range in
            openspeech_vk_widen_halves(base + range.lowerBound * columns, widened + range.lowerBound * columns,
                                       range.count * columns)
        }
        BLAS.gemm(m: inputRows, n: rows, k: columns, a: x, lda: columns, b: widened, ldb: columns, transposeB: true,
                  c: y, ldc: rows, beta: accumulate ? 1 : 0, parallel: parallel)
    }

    /// Below this many weights per thread, a product stays on one thread (the hand-off costs more).
    private static let minimumWeightsPerThread = 256 * 1024
    /// Rows of W widened at a time for BLAS: 64 × 512 floats (128 KiB) stay in the core's L2 cache.
    private static let blockRows = 64

    /// The halves are widened in registers as they stream (a C kernel per instruction-set level, `VectorKernels`).
    private func multiplyOne(_ inputs: UnsafeRawPointer, rows slice: Range<Int>, into y: UnsafeMutablePointer<Float>,
                             accumulate: Bool) {
        openspeech_vk_half_dot_rows(storage, columns, inputs.assumingMemoryBound(to: Float.self), slice.lowerBound,
                                    slice.upperBound, y, accumulate ? 1 : 0)
    }

    /// Widens `blockRows` rows of W at a time into `block` (each row reordered evens-then-odds, as the
    /// inputs are) and multiplies them with `sgemm`.
    private func multiplyBlocked(_ inputs: UnsafePointer<Float>, count: Int, rows slice: Range<Int>,
                                 into y: UnsafeMutablePointer<Float>, accumulate: Bool,
                                 block: UnsafeMutablePointer<Float>) {
        let half = columns / 2
        var start = slice.lowerBound
        while start < slice.upperBound {
            let blockCount = Swift.min(Self.blockRows, slice.upperBound - start)
            for r in 0..<blockCount {
                let even = block + r * columns
                openspeech_vk_widen_split(storage + (start + r) * columns, columns, even, even + half)
            }
            BLAS.gemm(m: count, n: blockCount, k: columns, a: inputs, lda: columns, b: block, ldb: columns,
                      transposeB: true, c: y + start, ldc: rows, beta: accumulate ? 1 : 0)
            start += blockCount
        }
    }

    /// Row `index` as fp32 into `destination` (`columns` floats).
    func row(_ index: Int, into destination: UnsafeMutablePointer<Float>) {
        HalfConversion.halfToFloat(UnsafeRawPointer(storage + index * columns), destination, count: columns)
    }
}
