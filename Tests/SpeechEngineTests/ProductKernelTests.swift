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

    /// The reference `C = A · op(B)` in double precision.
    static func product(_ a: [Float], _ b: [Float], m: Int, n: Int, k: Int, transposeB: Bool) -> [Float] {
        (0..<m * n).map { index in
            let (i, j) = index.quotientAndRemainder(dividingBy: n)
            let sum = (0..<k).reduce(0.0) { $0 + Double(a[i * k + $1]) * Double(transposeB ? b[j * k + $1] : b[$1 * n + j]) }
            return Float(sum)
        }
    }

    @Test("products over one, two or three threads equal bit for bit, and the reference within rounding",
          arguments: [(300, 200, 64), (1500, 384, 1536)], [false, true])
    func productsIndependentOfThreads(shape: (m: Int, n: Int, k: Int), transposeB: Bool) {
        // 1500 × 1536 by 1536 × 384 is the tiny encoder's feed-forward: oneDNN's AVX2 kernels gave other last bits
        // for its rows split at any point, so products run in fixed blocks of rows whatever the threads.
        let (m, n, k) = shape
        let a = Self.values(m * k, seed: 21), b = Self.values(k * n, seed: 22)
        func computed(_ parallel: Parallel) -> [Float] {
            var c = [Float](repeating: 0, count: m * n)
            a.withUnsafeBufferPointer { a in
                b.withUnsafeBufferPointer { b in
                    BLAS.gemm(m: m, n: n, k: k, a: a.baseAddress!, lda: k, b: b.baseAddress!, ldb: transposeB ? k : n,
                              transposeB: transposeB, c: &c, ldc: n, parallel: parallel)
                }
            }
            return c
        }
        let serial = computed(.serial)
        // `==` on arrays this long would print them whole: count the differing elements instead.
        for threads in [2, 3] {
            let differing = zip(computed(Parallel(threads: threads)), serial).count { $0.bitPattern != $1.bitPattern }
            #expect(differing == 0, "\(threads) threads: \(differing) of \(m * n) elements differ")
        }
        let reference = Self.product(a, b, m: m, n: n, k: k, transposeB: transposeB)
        let worst = zip(serial, reference).map { abs($0 - $1) }.max()!
        #expect(worst < Float(k) * 2e-7, "largest difference \(worst)")
    }

    @Test("matrix-vector products, plain and transposed, with strides, alpha and beta, equal the reference",
          arguments: [false, true])
    func matrixVectorProducts(transpose: Bool) {
        // A 150 × 64 block of a matrix 96 columns wide (a head's keys or values among others).
        let m = 150, n = 64, lda = 96
        let a = Self.values(m * lda, seed: 31)
        let x = Self.values(transpose ? m : n, seed: 32)
        let start = Self.values(transpose ? n : m, seed: 33)
        var y = start
        a.withUnsafeBufferPointer { a in
            BLAS.gemv(m: m, n: n, a: a.baseAddress!, lda: lda, transpose: transpose, x: x, y: &y, alpha: 0.5, beta: 1)
        }
        let dense = (0..<m).flatMap { row in a[row * lda..<row * lda + n] }
        // y = 0.5 · A·x + y, or 0.5 · Aᵀ·x + y: A·x is x as one row times Aᵀ; Aᵀ·x is x as one row times A.
        let product = transpose ? Self.product(x, dense, m: 1, n: n, k: m, transposeB: false)
                                : Self.product(x, dense, m: 1, n: m, k: n, transposeB: true)
        let expected = zip(product, start).map { 0.5 * $0 + $1 }
        let worst = zip(y, expected).map { abs($0 - $1) }.max()!
        #expect(worst < 1e-5, "largest difference \(worst)")
    }
}
