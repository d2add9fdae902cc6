import Testing
@testable import SpeechEngine

/// The engine's products against plain references: half-precision weights give what their fp32 values
/// give, and attention in blocks of query rows what whole score matrices give.
@Suite("Product kernels")
struct ProductKernelTests {
    /// Deterministic values in [-1, 1) (a linear congruential sequence), so failures reproduce.
    static func values(_ count: Int, seed: UInt64) -> [Float] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Float(Int64(bitPattern: state) >> 40) / Float(1 << 23)
        }
    }

    /// A 96 × 256 half matrix with a few subnormal, zero and negative-zero weights, and its fp32 values.
    static func weights() -> (HalfMatrix, Tensor) {
        var halves = values(96 * 256, seed: 7).map { Float16($0).bitPattern }
        halves[3] = 0x0001          // smallest subnormal
        halves[100] = 0x8000        // -0
        halves[2000] = 0x03FF       // largest subnormal
        let matrix = HalfMatrix(rows: 96, columns: 256) { $0.update(from: halves, count: halves.count) }
        let full = Tensor(shape: [96, 256], values: halves.map { Float(Float16(bitPattern: $0)) })
        return (matrix, full)
    }

    @Test("fp16 products match fp32 BLAS on the same values: 1, 5, 100 rows within rounding, 600 bit for bit",
          arguments: [1, 5, 100, 600])
    func halfMatrixMatchesFullPrecision(rows: Int) {
        let (matrix, full) = Self.weights()
        let x = Self.values(rows * 256, seed: UInt64(rows))
        var expected = [Float](repeating: 0, count: rows * 96), actual = expected
        for accumulate in [false, true] {
            x.withUnsafeBufferPointer { x in
                BLAS.linear(x.baseAddress!, rows: rows, weight: full, bias: nil, into: &expected, accumulate: accumulate,
                            parallel: Parallel(threads: 2))
                matrix.multiply(x.baseAddress!, rows: rows, into: &actual, accumulate: accumulate, scratch: Buffer(),
                                parallel: Parallel(threads: 2))
            }
            if rows >= 512 {
                #expect(actual == expected)
            } else {
                let worst = zip(actual, expected).map { abs($0 - $1) }.max()!
                #expect(worst < 1e-4, "largest difference \(worst)")
            }
        }
    }

    @Test("attention over 1500 frames in row blocks equals whole score matrices within rounding")
    func blockedAttentionIsExact() {
        let rows = 1500, heads = 6, headDim = 64, d = heads * headDim
        let qkv = Self.values(rows * 3 * d, seed: 11)
        var blocked = [Float](repeating: 0, count: rows * d), whole = blocked
        var seenHeads: [Int] = []
        qkv.withUnsafeBufferPointer { qkv in
            let q = qkv.baseAddress!
            Attention.attend(query: q, queryStride: 3 * d, rows: rows, key: q + d, keyStride: 3 * d, value: q + 2 * d,
                             valueStride: 3 * d, length: rows, heads: heads, headDim: headDim, output: &blocked,
                             outputStride: d, scores: Buffer(), parallel: Parallel(threads: 2))
            // Watching the scores makes attention take each head's whole score matrix at once.
            Attention.attend(query: q, queryStride: 3 * d, rows: rows, key: q + d, keyStride: 3 * d, value: q + 2 * d,
                             valueStride: 3 * d, length: rows, heads: heads, headDim: headDim, output: &whole,
                             outputStride: d, scores: Buffer(), onScores: { head, _ in seenHeads.append(head) })
        }
        #expect(seenHeads == Array(0..<heads))
        // BLAS may order a block's sums differently from the whole matrix's: equal up to the fp32 rounding of
        // 1500-term sums of values within ±1 (a wrong block or mask would be off by 1e-3 or more).
        let worst = zip(blocked, whole).map { abs($0 - $1) }.max()!
        #expect(worst < 1e-6, "largest difference \(worst)")
        #expect(blocked.allSatisfy { $0.isFinite })
    }
}
