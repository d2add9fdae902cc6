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

    /// `Y[b, r] = Σ_c W[r, c] · X[b, c]` for `count` input rows X (`count × columns`) into Y
    /// (`count × rows`), streaming the weights once for all inputs (a beam's rows); large matrices are
    /// split into slices of W's rows over `parallel`'s threads. `scratch` holds at least `count · columns` floats.
    func multiply(_ x: UnsafePointer<Float>, count: Int, into y: UnsafeMutablePointer<Float>,
                  scratch: UnsafeMutablePointer<Float>, parallel: Parallel = .serial) {
        // Weights are read as 32-bit lanes holding two halves: lane j of a 16-half chunk has
        // element 2j in its low half and 2j+1 in its high half. Split each x the same way once.
        let half = columns / 2
        for b in 0..<count {
            let even = scratch + b * columns, odd = even + half, source = x + b * columns
            for i in 0..<half { even[i] = source[2 * i]; odd[i] = source[2 * i + 1] }
        }
        let inputs = UnsafeRawPointer(scratch)
        parallel.forEachSlice(of: rows, minimumSlice: Self.minimumWeightsPerThread / columns) { _, slice in
            if count == 1 {
                multiplyOne(inputs, rows: slice, into: y)
            } else {
                multiplyMany(inputs, count: count, rows: slice, into: y)
            }
        }
    }

    /// Below this many weights per thread, a product stays on one thread (the hand-off costs more).
    private static let minimumWeightsPerThread = 256 * 1024

    private func multiplyOne(_ inputs: UnsafeRawPointer, rows slice: Range<Int>, into y: UnsafeMutablePointer<Float>) {
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
            y[r] = (accumulatorEven + accumulatorOdd).sum()
        }
    }

    private func multiplyMany(_ inputs: UnsafeRawPointer, count: Int, rows slice: Range<Int>,
                              into y: UnsafeMutablePointer<Float>) {
        let base = UnsafeRawPointer(storage)
        let rowBytes = columns * 2, inputBytes = columns * 4, halfBytes = columns * 2
        withUnsafeTemporaryAllocation(of: SIMD8<Float>.self, capacity: count) { accumulators in
            for r in slice {
                let row = base + r * rowBytes
                for b in 0..<count { accumulators[b] = SIMD8<Float>() }
                var offset = 0
                while offset < rowBytes {
                    let w = row.loadUnaligned(fromByteOffset: offset, as: SIMD8<UInt32>.self)
                    let even = Self.widen(w &<< 16), odd = Self.widen(w & 0xFFFF_0000)
                    for b in 0..<count {
                        let input = inputs + b * inputBytes
                        accumulators[b] += even * input.loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self)
                            + odd * input.loadUnaligned(fromByteOffset: halfBytes + offset, as: SIMD8<Float>.self)
                    }
                    offset += 32
                }
                for b in 0..<count { y[b * rows + r] = accumulators[b].sum() }
            }
        }
    }

    /// `Y = X · Wᵀ` for any number of input rows, in blocks of up to 8 sharing one pass over W.
    /// `scratch` holds at least `8 · columns` floats.
    func multiply(_ x: UnsafePointer<Float>, rows inputRows: Int, into y: UnsafeMutablePointer<Float>,
                  scratch: UnsafeMutablePointer<Float>, parallel: Parallel = .serial) {
        var start = 0
        while start < inputRows {
            let count = min(8, inputRows - start)
            multiply(x + start * columns, count: count, into: y + start * rows, scratch: scratch, parallel: parallel)
            start += count
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
