import Testing
@testable import SpeechEngine

#if canImport(CDNNL)
/// oneDNN products against BLAS on the same fp32 weights: fp32 within rounding, bf16 and int8 within their
/// precision; one to 600 input rows (beam rows to the encoder's split rows), bias and accumulation, a matrix split
/// into parts. (The transposed few-row products of oneDNN's AVX2 kernels are covered by `ComputeTypeTests.avx2`.)
@Suite("oneDNN products")
struct PackedMatrixTests {
    /// Whether this CPU has kernels for `precision`: bf16 needs AVX-512 BF16 or AMX (elsewhere the engine runs
    /// `bfloat16` as fp32, `ComputeType.resolved`).
    static func runs(_ precision: PackedMatrix.Precision) -> Bool {
        precision != .bfloat16 || MatrixBackend.hasBFloat16
    }

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
        for (precision, tolerance) in [(PackedMatrix.Precision.float32, Float(1e-5)), (.bfloat16, 1e-2), (.int8, 2e-2)]
            where Self.runs(precision) {
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

    /// int8 products are the int32 sums of the quantized rows, rescaled, bit for bit. On AVX2 without VNNI (u8 × s8
    /// pairs summed in int16 with saturation) the weights are halved at load so that no pair saturates: the sums are
    /// then exact with the halved weights and halved scales.
    @Test("int8 products equal the quantized rows' int32 sums, rescaled, bit for bit", arguments: [1, 5, 100, 300])
    func int8AsQuantized(rows: Int) {
        let outputs = 200, inputs = 384
        let w = ProductKernelTests.values(outputs * inputs, seed: 3), x = ProductKernelTests.values(rows * inputs, seed: 5)
        let packed = w.withUnsafeBufferPointer {
            PackedMatrix(weights: $0.baseAddress!, rows: outputs, columns: inputs, bias: nil, precision: .int8, parts: 1)
        }
        var actual = [Float](repeating: 0, count: rows * outputs)
        x.withUnsafeBufferPointer {
            packed.multiply($0.baseAddress!, rows: rows, into: &actual, scratch: Buffer(), parallel: Parallel(threads: 2))
        }
        var qw = [Int8](repeating: 0, count: outputs * inputs), weightScales = [Float](repeating: 0, count: outputs)
        var qx = [Int8](repeating: 0, count: rows * inputs), rowScales = [Float](repeating: 0, count: rows)
        w.withUnsafeBufferPointer {
            RowQuantization.quantize($0.baseAddress!, rows: 0..<outputs, columns: inputs, into: &qw, scales: &weightScales,
                                     activations: false)
        }
        x.withUnsafeBufferPointer {
            RowQuantization.quantize($0.baseAddress!, rows: 0..<rows, columns: inputs, into: &qx, scales: &rowScales,
                                     activations: true)
        }
        if packed.saturatesPairs {
            qw = qw.map { Int8((Int16($0) + ($0 < 0 ? -1 : 1)) / 2) }
            weightScales = weightScales.map { $0 / 2 }
            // Every pair of shifted rows times weights stays within int16.
            #expect(qw.allSatisfy { abs(Int($0)) <= 64 })
        }
        let sums = (0..<rows * outputs).map { index -> Int32 in
            let (r, c) = index.quotientAndRemainder(dividingBy: outputs)
            var sum: Int32 = 0
            for k in 0..<inputs { sum += Int32(qx[r * inputs + k]) * Int32(qw[c * inputs + k]) }
            return sum
        }
        var expected = [Float](repeating: 0, count: rows * outputs)
        sums.withUnsafeBufferPointer {
            RowQuantization.rescale($0.baseAddress!, rows: 0..<rows, columns: 0..<outputs, stride: outputs,
                                    rowScales: rowScales, columnScales: weightScales, bias: nil, into: &expected,
                                    accumulate: false)
        }
        let differing = zip(actual, expected).count { $0.bitPattern != $1.bitPattern }
        #expect(differing == 0, "\(differing) of \(actual.count) differ (pairs saturate: \(packed.saturatesPairs))")
    }

    /// Row counts rounded up to buckets (padded with copies of the last row) give every row what a product of exactly
    /// that many rows gives, and what the same row gives among more rows: bit for bit where a row's result does not
    /// depend on the other rows (blocked kernels; int8's exact sums), within fp32 rounding on oneDNN's gemm-based fp32
    /// kernels (AVX2), whose last bits depend on the row count. On every kernel a product's bits do not depend on the
    /// threads (fp32, bf16, int8; 1 to 260 rows, with and without accumulation).
    @Test("bucketed row counts change no bit where rows are independent; threads never do")
    func bucketedRowsChangeNoBit() {
        let outputs = 200, inputs = 384, most = 260
        let w = ProductKernelTests.values(outputs * inputs, seed: 11)
        let bias = Tensor(shape: [outputs], values: ProductKernelTests.values(outputs, seed: 12))
        let x = ProductKernelTests.values(most * inputs, seed: 13)
        let start = ProductKernelTests.values(most * outputs, seed: 14)
        #expect(Set((1...most).map(PackedMatrix.plannedRows)).count <= 27 + 4)
        #expect((1...most).allSatisfy { PackedMatrix.plannedRows($0) >= $0 })
        for precision in [PackedMatrix.Precision.float32, .bfloat16, .int8] where Self.runs(precision) {
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
            let independentRows = !bucketed.rowsShareBits
            var mismatches: [String] = []
            for rows in 1...most {
                let accumulate = rows % 2 == 1
                var viaBucket = Array(start.prefix(rows * outputs)), viaExact = viaBucket, onTwoThreads = viaBucket
                x.withUnsafeBufferPointer { x in
                    bucketed.multiply(x.baseAddress!, rows: rows, into: &viaBucket, accumulate: accumulate,
                                      scratch: Buffer())
                    bucketed.multiply(x.baseAddress!, rows: rows, into: &onTwoThreads, accumulate: accumulate,
                                      scratch: Buffer(), parallel: Parallel(threads: 2))
                    exact.multiply(x.baseAddress!, rows: rows, into: &viaExact, accumulate: accumulate,
                                   scratch: Buffer())
                }
                let among = Array(all.prefix(rows * outputs))
                let bits = { (values: [Float]) in values.map(\.bitPattern) }
                let same = { (a: [Float], b: [Float]) in
                    // Sums of 384 products in ±1 reach about 20: another order of adding moves them by ~1e-5.
                    independentRows ? bits(a) == bits(b) : zip(a, b).allSatisfy { abs($0 - $1) <= 1e-4 }
                }
                if bits(onTwoThreads) != bits(viaBucket) { mismatches.append("\(rows) rows: two threads ≠ one") }
                if !same(viaBucket, viaExact) { mismatches.append("\(rows) rows: bucketed ≠ exact") }
                if accumulate && !same(viaExact, among) { mismatches.append("\(rows) rows: ≠ the same rows among \(most)") }
            }
            #expect(mismatches.isEmpty, "\(precision): \(mismatches.prefix(8))")
        }
    }
}
#endif
