/// A matrix kept in IEEE half precision (the precision CTranslate2 stores Whisper in, so no value
/// changes), multiplied by fp32 vectors with a kernel that streams half the bytes of fp32 weights.
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
    func multiply(_ x: UnsafePointer<Float>, rows inputRows: Int, into y: UnsafeMutablePointer<Float>,
                  accumulate: Bool = false, scratch: Buffer, parallel: Parallel = .serial) {
        guard inputRows > 0 else { return }
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

    /// Below this many weights per thread, a product stays on one thread (the hand-off costs more).
    private static let minimumWeightsPerThread = 256 * 1024
    /// Rows of W widened at a time for BLAS: 64 × 512 floats (128 KiB) stay in the core's L2 cache.
    private static let blockRows = 64

    private func multiplyOne(_ inputs: UnsafeRawPointer, rows slice: Range<Int>, into y: UnsafeMutablePointer<Float>,
                             accumulate: Bool) {
        let base = UnsafeRawPointer(storage)
        let rowBytes = columns * 2, halfBytes = columns * 2
        for r in slice {
            let row = base + r * rowBytes
            var accumulatorEven = SIMD8<Float>(), accumulatorOdd = SIMD8<Float>()
            var offset = 0
            while offset < rowBytes {
                let w = row.loadUnaligned(fromByteOffset: offset, as: SIMD8<UInt32>.self)
                accumulatorEven += Self.widen(w &<< 16) * inputs.loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self)
                accumulatorOdd += Self.widen(w & 0xFFFF_0000)
                    * inputs.loadUnaligned(fromByteOffset: halfBytes + offset, as: SIMD8<Float>.self)
                offset += 32
            }
            let sum = (accumulatorEven + accumulatorOdd).sum()
            y[r] = accumulate ? y[r] + sum : sum
        }
    }

    /// Widens `blockRows` rows of W at a time into `block` (each row reordered evens-then-odds, as the
    /// inputs are) and multiplies them with `sgemm`.
    private func multiplyBlocked(_ inputs: UnsafePointer<Float>, count: Int, rows slice: Range<Int>,
                                 into y: UnsafeMutablePointer<Float>, accumulate: Bool,
                                 block: UnsafeMutablePointer<Float>) {
        let base = UnsafeRawPointer(storage)
        let rowBytes = columns * 2, half = columns / 2
        var start = slice.lowerBound
        while start < slice.upperBound {
            let blockCount = Swift.min(Self.blockRows, slice.upperBound - start)
            for r in 0..<blockCount {
                let row = base + (start + r) * rowBytes
                let even = UnsafeMutableRawPointer(block + r * columns), odd = even + half * 4
                var offset = 0
                while offset < rowBytes {
                    let w = row.loadUnaligned(fromByteOffset: offset, as: SIMD8<UInt32>.self)
                    even.storeBytes(of: Self.widen(w &<< 16), toByteOffset: offset, as: SIMD8<Float>.self)
                    odd.storeBytes(of: Self.widen(w & 0xFFFF_0000), toByteOffset: offset, as: SIMD8<Float>.self)
                    offset += 32
                }
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

    /// fp32 values of halves held in the high 16 bits of each lane: magnitude moved into fp32
    /// position and scaled by 2^112 (exact for normal and subnormal halves), sign restored.
    @inline(__always) private static func widen(_ v: SIMD8<UInt32>) -> SIMD8<Float> {
        let magnitude = unsafeBitCast((v & 0x7FFF_0000) &>> 3, to: SIMD8<Float>.self) * 5.192296858534828e+33
        return unsafeBitCast(unsafeBitCast(magnitude, to: SIMD8<UInt32>.self) | (v & 0x8000_0000), to: SIMD8<Float>.self)
    }
}
