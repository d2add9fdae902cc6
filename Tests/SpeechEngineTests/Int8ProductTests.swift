import Testing
@testable import SpeechEngine

/// The engine's own int8 product of a few rows (the decoder's on AVX2 without VNNI) against a plain reference:
/// exact int32 sums whatever the instruction-set level, including the values at which AVX2's pairwise
/// `maddubs` would saturate (weights -128 and ±127 against inputs ±127).
@Suite("int8 row products", .serialized)
struct Int8ProductTests {
    /// Deterministic int8 values over the whole range (weights) or -127...127 (inputs, as quantization makes them).
    static func bytes(_ count: Int, seed: UInt64, lowest: Int = -128) -> [Int8] {
        var state = seed
        let span = UInt64(127 - lowest + 1)
        return (0..<count).map { _ in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int8(Int(state >> 33) % Int(span) + lowest)
        }
    }

    /// y as the kernel defines it (CTranslate2's dequantization), summed plainly in Int32.
    static func reference(weights: [Int8], scales: [Float], columns: Int, x: [Int8], xScales: [Float], count: Int,
                          rows: Int, bias: [Float]?, initial: [Float], accumulate: Bool) -> [Float] {
        var y = initial
        for m in 0..<count {
            for n in 0..<rows {
                var sum: Int32 = 0
                for k in 0..<columns { sum += Int32(x[m * columns + k]) * Int32(weights[n * columns + k]) }
                let scaled = Float(sum) * (1 / xScales[m]) / scales[n]
                let value = bias.map { scaled + $0[n] } ?? scaled
                y[m * rows + n] = accumulate ? y[m * rows + n] + value : value
            }
        }
        return y
    }

    /// Widths with and without a partial 32-byte tail; 384 is tiny.en's.
    @Test("bit for bit the plain Int32 product at every ISA level: 1–7 rows, odd widths, saturation extremes",
          arguments: [1, 31, 32, 33, 95, 384])
    func matchesReference(columns: Int) {
        let rows = 37
        var weights = Self.bytes(rows * columns, seed: UInt64(columns))
        // Row 0 all -128, row 1 all 127, row 2 all -127: with inputs ±127 every pair is at AVX2's int16 limit.
        for k in 0..<columns { weights[k] = -128; weights[columns + k] = 127; weights[2 * columns + k] = -127 }
        let scales = (0..<rows).map { 1000 / Float($0 + 1) }
        let bias = (0..<rows).map { Float($0) * 0.25 - 3 }
        for count in 1...7 {
            var x = Self.bytes(count * columns, seed: UInt64(count * 1000 + columns), lowest: -127)
            // Row 0 of x at +127 and (if any) row 1 at -127 throughout.
            for k in 0..<columns { x[k] = 127 }
            if count > 1 { for k in 0..<columns { x[columns + k] = -127 } }
            let xScales = (0..<count).map { 1 / (0.5 + Float($0)) }
            let initial = (0..<count * rows).map { Float($0 % 11) - 5 }
            for (withBias, accumulate) in [(false, false), (true, false), (false, true), (true, true)] {
                let expected = Self.reference(weights: weights, scales: scales, columns: columns, x: x,
                                              xScales: xScales, count: count, rows: rows,
                                              bias: withBias ? bias : nil, initial: initial, accumulate: accumulate)
                VectorKernelTests.atEachLevel { level in
                    var y = initial
                    bias.withUnsafeBufferPointer { b in
                        Int8Matrix.product(weights: weights, scales: scales, columns: columns, x: x, xScales: xScales,
                                           count: count, rows: 0..<rows, bias: withBias ? b.baseAddress! : nil, into: &y,
                                           stride: rows, accumulate: accumulate)
                    }
                    #expect(VectorKernelTests.bits(y) == VectorKernelTests.bits(expected),
                            "\(count) rows × \(columns) at \(level.name), bias \(withBias), accumulate \(accumulate)")
                }
            }
        }
    }

    @Test("a slice of W's rows writes only its own columns of y")
    func rowSlices() {
        let rows = 40, columns = 64, count = 3
        let weights = Self.bytes(rows * columns, seed: 3), x = Self.bytes(count * columns, seed: 4, lowest: -127)
        let scales = [Float](repeating: 100, count: rows), xScales: [Float] = [1, 0.5, 0.25]
        VectorKernelTests.atEachLevel { level in
            var y = [Float](repeating: .nan, count: count * rows)
            Int8Matrix.product(weights: weights, scales: scales, columns: columns, x: x, xScales: xScales,
                               count: count, rows: 10..<25, bias: nil, into: &y, stride: rows, accumulate: false)
            for m in 0..<count {
                for n in 0..<rows { #expect(y[m * rows + n].isNaN == !(10..<25).contains(n), "at \(level.name)") }
            }
        }
    }

    @Test("fp32 rows through Int8Matrix: the fp32 product within int8 quantization error, 1–5 and 40 rows",
          arguments: [1, 2, 3, 4, 5, 40, 70])
    func againstFloatProduct(count: Int) {
        let rows = 300, columns = 384
        let w = ProductKernelTests.values(rows * columns, seed: 21)
        let x = ProductKernelTests.values(count * columns, seed: UInt64(30 + count))
        let biasValues = ProductKernelTests.values(rows, seed: 5)
        let bias = Tensor(shape: [rows], values: biasValues)
        let matrix = w.withUnsafeBufferPointer { Int8Matrix(weights: $0.baseAddress!, rows: rows, columns: columns, bias: bias) }
        var expected = [Float](repeating: 0, count: count * rows)
        for m in 0..<count {
            for n in 0..<rows {
                var s: Float = 0
                for k in 0..<columns { s += x[m * columns + k] * w[n * columns + k] }
                expected[m * rows + n] = s + biasValues[n]
            }
        }
        VectorKernelTests.atEachLevel { level in
            var y = [Float](repeating: 0, count: count * rows)
            x.withUnsafeBufferPointer {
                matrix.multiply($0.baseAddress!, rows: count, into: &y, scratch: Buffer(), parallel: Parallel(threads: 2))
            }
            // Each operand rounds by at most half a unit of max|·|/127 (max ≈ 1): error ≲ Σ|x|·0.004 + Σ|w|·0.004.
            let worst = zip(y, expected).map { abs($0 - $1) }.max()!
            #expect(worst < 0.3, "largest difference \(worst) at \(level.name)")
            let typical = zip(y, expected).map { abs($0 - $1) }.reduce(0, +) / Float(y.count)
            #expect(typical < 0.05, "mean difference \(typical) at \(level.name)")
        }
    }
}
