import Testing
@testable import SpeechEngine

#if canImport(CDNNL)
/// oneDNN products against BLAS on the same fp32 weights: fp32 within rounding, bf16 and int8 within their
/// precision; one to 600 input rows (beam rows to the encoder's split rows), bias and accumulation, a matrix split
/// into parts. (The transposed few-row products of oneDNN's AVX2 kernels are covered by `ComputeTypeTests.avx2`.)
@Suite("oneDNN products")
struct PackedMatrixTests {
    /// A 1088 × 384 weight and its bias.
    static let outputs = 1088, inputs = 384

    @Test("fp32, bf16 and int8 against BLAS", arguments: [1, 5, 100, 600])
    func againstBLAS(rows: Int) {
        let w = ProductKernelTests.values(Self.outputs * Self.inputs, seed: 3)
        let bias = Tensor(shape: [Self.outputs], values: ProductKernelTests.values(Self.outputs, seed: 4))
        let full = Tensor(shape: [Self.outputs, Self.inputs], values: w)
        let x = ProductKernelTests.values(rows * Self.inputs, seed: UInt64(rows))
        let start = ProductKernelTests.values(rows * Self.outputs, seed: 9)
        // Tolerances relative to the largest result (sums of 384 products of values in ±1: up to about 12).
        for (precision, tolerance) in [(PackedMatrix.Precision.float32, Float(1e-5)), (.bfloat16, 1e-2), (.int8, 2e-2)] {
            for parts in [1, 2] {
                let packed = w.withUnsafeBufferPointer {
                    PackedMatrix(weights: $0.baseAddress!, rows: Self.outputs, columns: Self.inputs, bias: bias,
                                 precision: precision, parts: parts)
                }
                for accumulate in [false, true] {
                    var expected = start, actual = start
                    x.withUnsafeBufferPointer { x in
                        BLAS.linear(x.baseAddress!, rows: rows, weight: full, bias: bias, into: &expected,
                                    accumulate: accumulate)
                        packed.multiply(x.baseAddress!, rows: rows, into: &actual, accumulate: accumulate, scratch: Buffer(),
                                        parallel: Parallel(threads: 2))
                    }
                    let scale = expected.map(abs).max()!
                    let worst = zip(actual, expected).map { abs($0 - $1) }.max()! / scale
                    #expect(worst < tolerance, "\(precision), \(parts) parts, accumulate \(accumulate): \(worst)")
                }
            }
        }
    }

    /// Row counts rounded up to buckets (padded with copies of the last row) give every row bit for bit what a
    /// product of exactly that many rows gives, and what the same row gives among more rows: a row's result does
    /// not depend on the other rows, so bucketing changes no output (fp32, bf16, int8; 1 to 260 rows, serial and
    /// split over two threads, with and without accumulation).
    @Test("bucketed row counts change no bit")
    func bucketedRowsChangeNoBit() {
        let outputs = 200, inputs = 384, most = 260
        let w = ProductKernelTests.values(outputs * inputs, seed: 11)
        let bias = Tensor(shape: [outputs], values: ProductKernelTests.values(outputs, seed: 12))
        let x = ProductKernelTests.values(most * inputs, seed: 13)
        let start = ProductKernelTests.values(most * outputs, seed: 14)
        #expect(Set((1...most).map(PackedMatrix.plannedRows)).count <= 27 + 4)
        #expect((1...most).allSatisfy { PackedMatrix.plannedRows($0) >= $0 })
        for precision in [PackedMatrix.Precision.float32, .bfloat16, .int8] {
            let (bucketed, exact) = w.withUnsafeBufferPointer {
                (PackedMatrix(weights: $0.baseAddress!, rows: outputs, columns: inputs, bias: bias, precision: precision,
                              parts: 1),
                 PackedMatrix(weights: $0.baseAddress!, rows: outputs, columns: inputs, bias: bias, precision: precision,
                              parts: 1, bucketsRows: false))
            }
            var all = start
            x.withUnsafeBufferPointer {
                exact.multiply($0.baseAddress!, rows: most, into: &all, accumulate: true, scratch: Buffer())
            }
            var mismatches: [String] = []
            for rows in 1...most {
                let accumulate = rows % 2 == 1
                let parallel = Parallel(threads: rows % 3 == 0 ? 2 : 1)
                var viaBucket = Array(start.prefix(rows * outputs)), viaExact = viaBucket
                x.withUnsafeBufferPointer { x in
                    bucketed.multiply(x.baseAddress!, rows: rows, into: &viaBucket, accumulate: accumulate,
                                      scratch: Buffer(), parallel: parallel)
                    exact.multiply(x.baseAddress!, rows: rows, into: &viaExact, accumulate: accumulate,
                                   scratch: Buffer(), parallel: parallel)
                }
                let bits = { (values: [Float]) in values.map(\.bitPattern) }
                if bits(viaBucket) != bits(viaExact) { mismatches.append("\(rows) rows: bucketed ≠ exact") }
                if accumulate && bits(viaExact) != bits(Array(all.prefix(rows * outputs))) {
                    mismatches.append("\(rows) rows: ≠ the same rows among \(most)")
                }
            }
            #expect(mismatches.isEmpty, "\(precision): \(mismatches.prefix(8))")
        }
    }
}
#endif
