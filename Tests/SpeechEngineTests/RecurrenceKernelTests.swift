import CVectorKernels
import Testing
@testable import SpeechEngine

/// The two kernels of an LSTM step over a batch of sequences (`SpeakerSegmentationModel`): the product of a few rows
/// by the hidden weights, whose bits must not depend on how many rows go together (oneDNN's do), and the cell.
@Suite("Recurrence kernels", .serialized)
struct RecurrenceKernelTests {
    /// `openspeech_vk_rows_product` of `count` rows of `x` (`inner` each, `stride` apart) by the row-major `w` (packed
    /// first) into `y` (`columns` each, `outStride` apart, accumulated onto `initial`).
    static func product(_ x: [Float], stride: Int, count: Int, inner: Int, _ w: [Float], columns: Int,
                        initial: [Float], outStride: Int) -> [Float] {
        var y = initial
        var packed = [Float](repeating: 0, count: w.count)
        packed.withUnsafeMutableBufferPointer { openspeech_vk_pack_panels(w, inner, columns, $0.baseAddress!) }
        x.withUnsafeBufferPointer { x in
            packed.withUnsafeBufferPointer { w in
                y.withUnsafeMutableBufferPointer { y in
                    openspeech_vk_rows_product(x.baseAddress!, stride, count, inner, w.baseAddress!, columns,
                                               y.baseAddress!, outStride, 1)
                }
            }
        }
        return y
    }

    @Test("rows times a matrix: each row's bits the same alone, among 2 to 9 rows, at any position and every ISA level",
          arguments: [512, 208, 48])
    func rowsProduct(columns: Int) {
        let inner = 128, stride = 300, outStride = columns + 32, rows = 9
        let w = ProductKernelTests.values(inner * columns, seed: 21).map { $0 * 0.3 }
        let x = ProductKernelTests.values(rows * stride, seed: 22)
        let initial = ProductKernelTests.values(rows * outStride, seed: 23)
        // Each row alone, and its value to double precision.
        var alone: [[Float]] = []
        for row in 0..<rows {
            let y = Self.product(Array(x[(row * stride)...]), stride: stride, count: 1, inner: inner, w, columns: columns,
                                 initial: Array(initial[(row * outStride)..<((row + 1) * outStride)]), outStride: outStride)
            alone.append(Array(y.prefix(columns)))
            let exact = (0..<columns).map { c in
                (0..<inner).reduce(Double(initial[row * outStride + c])) {
                    $0 + Double(x[row * stride + $1]) * Double(w[$1 * columns + c])
                }
            }
            let worst = zip(alone[row], exact).map { abs(Double($0) - $1) }.max()!
            #expect(worst < 1e-5, "row \(row): \(worst)")
        }
        VectorKernelTests.atEachLevel { level in
            for count in 1...rows {
                for first in [0, rows - count] {
                    let y = Self.product(Array(x[(first * stride)...]), stride: stride, count: count, inner: inner, w,
                                         columns: columns, initial: Array(initial[(first * outStride)...]), outStride: outStride)
                    for row in 0..<count {
                        let mine = Array(y[(row * outStride)..<(row * outStride + columns)])
                        #expect(VectorKernelTests.bits(mine) == VectorKernelTests.bits(alone[first + row]),
                                "\(level.name): row \(first + row) of \(count) from \(first)")
                    }
                    // Past each row's columns, nothing written.
                    #expect(y[columns..<outStride] == initial[(first * outStride + columns)..<((first + 1) * outStride)])
                }
            }
        }
    }

    @Test("the LSTM cell: the Swift SIMD16 formulas' bits (FastMath's exp) at every ISA level")
    func cell() {
        let hidden = 128, count = 3, zStride = 4 * hidden + 40, outStride = 2 * hidden
        let z = VectorKernelTests.values(count * zStride, seed: 31).map { $0 * 2 }
        let c0 = ProductKernelTests.values(count * hidden, seed: 32).map { $0 * 3 }
        func sigmoid(_ x: SIMD16<Float>) -> SIMD16<Float> { 1 / (1 + FastMath.exp(-x)) }
        func tanh(_ x: SIMD16<Float>) -> SIMD16<Float> { 1 - 2 / (FastMath.exp(x + x) + 1) }
        var cells = c0, hiddenStates = [Float](repeating: 0, count: count * outStride)
        for r in 0..<count {
            for j in stride(from: 0, to: hidden, by: 16) {
                func gate(_ k: Int) -> SIMD16<Float> { SIMD16(z[(r * zStride + k * hidden + j)..<(r * zStride + k * hidden + j + 16)]) }
                let next = sigmoid(gate(1)) * SIMD16(cells[(r * hidden + j)..<(r * hidden + j + 16)]) + sigmoid(gate(0)) * tanh(gate(2))
                let h = sigmoid(gate(3)) * tanh(next)
                for lane in 0..<16 {
                    cells[r * hidden + j + lane] = next[lane]
                    hiddenStates[r * outStride + j + lane] = h[lane]
                }
            }
        }
        #expect(hiddenStates.allSatisfy { $0.isFinite && abs($0) <= 1 })
        VectorKernelTests.atEachLevel { level in
            var c = c0, h = [Float](repeating: 0, count: count * outStride)
            z.withUnsafeBufferPointer { z in
                c.withUnsafeMutableBufferPointer { c in
                    h.withUnsafeMutableBufferPointer { h in
                        openspeech_vk_lstm_cell(z.baseAddress!, zStride, count, hidden, c.baseAddress!, h.baseAddress!, outStride)
                    }
                }
            }
            #expect(VectorKernelTests.bits(c) == VectorKernelTests.bits(cells), "cell state at \(level.name)")
            #expect(VectorKernelTests.bits(h) == VectorKernelTests.bits(hiddenStates), "hidden state at \(level.name)")
        }
    }
}
