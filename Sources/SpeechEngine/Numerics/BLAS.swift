#if canImport(CDNNL)
import CDNNL
#endif
import CBLAS

/// Float32 products of two run-time matrices (attention, the mel spectrogram, Silero, widened fp16 weights): through
/// oneDNN's `sgemm` where the build has oneDNN (x86 Linux), its kernels JIT-compiled for the CPU the process runs on;
/// else through BLAS (OpenBLAS; Accelerate on Apple). Not OpenBLAS on x86: its kernels are chosen from the CPUs its
/// build knows, and on one it does not (an Intel Xeon of 2026, Debian's 0.3.21) it runs SSE3 kernels 3–4× slower
/// (BENCHMARKS.md, 2026-11-26). Matrices are row-major; a linear layer's weight is `[out, in]`.
enum BLAS {
    /// `C[m×n] = alpha · A[m×k] · op(B) + beta · C`, where `op(B)` is `B[k×n]` or, when `transposeB`,
    /// the transpose of `B[n×k]`. Computed in blocks of `rowBlock` rows of `A` and `C`, spread over `parallel`.
    @inline(__always)
    static func gemm(m: Int, n: Int, k: Int,
                     a: UnsafePointer<Float>, lda: Int,
                     b: UnsafePointer<Float>, ldb: Int, transposeB: Bool,
                     c: UnsafeMutablePointer<Float>, ldc: Int,
                     alpha: Float = 1, beta: Float = 0, parallel: Parallel = .serial) {
        let blocks = (m + rowBlock - 1) / rowBlock
        parallel.forEachSlice(of: blocks, minimumSlice: 1) { _, blockRange in
            for block in blockRange {
                let rows = block * rowBlock ..< Swift.min(m, (block + 1) * rowBlock)
                #if canImport(CDNNL)
                oneDNNProduct(m: rows.count, n: n, k: k, a: a + rows.lowerBound * lda, lda: lda, b: b, ldb: ldb,
                              transposeB: transposeB, c: c + rows.lowerBound * ldc, ldc: ldc, alpha: alpha, beta: beta)
                #else
                cblas_sgemm(CblasRowMajor, CblasNoTrans, transposeB ? CblasTrans : CblasNoTrans,
                            Int32(rows.count), Int32(n), Int32(k), alpha, a + rows.lowerBound * lda, Int32(lda),
                            b, Int32(ldb), beta, c + rows.lowerBound * ldc, Int32(ldc))
                #endif
            }
        }
    }

    /// Products are computed in calls of this many rows, on one thread or many: a product's bits are then a function
    /// of its inputs alone, not of the number of threads. oneDNN's kernels block a product by the shape they are
    /// given, and on AVX2 (a Zen 3 EPYC) rows split differently came out different in the last bits: a 1500×1536 by
    /// 1536×384 product, the tiny encoder's feed-forward, differed for every split tried (`ProductKernelTests`).
    /// 125 divides Whisper's 1,500 encoder frames (a window's rows in a batch are computed by the same calls as
    /// alone) into 12 blocks, even over 2, 3, 4 or 6 threads; calls this size cost a few per cent over one call.
    static let rowBlock = 125

    #if canImport(CDNNL)
    /// `C[m×n] = alpha · A[m×k] · op(B) + beta · C` through oneDNN's `sgemm`, on the calling thread.
    @inline(__always)
    private static func oneDNNProduct(m: Int, n: Int, k: Int, a: UnsafePointer<Float>, lda: Int,
                                      b: UnsafePointer<Float>, ldb: Int, transposeB: Bool,
                                      c: UnsafeMutablePointer<Float>, ldc: Int, alpha: Float, beta: Float) {
        OneDNN.useCallerThreadOnly()
        OneDNN.check(dnnl_sgemm(CChar(UInt8(ascii: "N")), CChar(UInt8(ascii: transposeB ? "T" : "N")),
                                Int64(m), Int64(n), Int64(k), alpha, a, Int64(lda), b, Int64(ldb), beta, c, Int64(ldc)),
                     "multiplying a \(m)×\(k) by a \(k)×\(n) matrix")
        EngineWork.didUse(.product)
    }
    #endif

    /// `y[m] = alpha · A[m×n] · x + beta · y`, or with `transpose`, `y[n] = alpha · Aᵀ · x + beta · y`.
    @inline(__always)
    static func gemv(m: Int, n: Int, a: UnsafePointer<Float>, lda: Int, transpose: Bool = false,
                     x: UnsafePointer<Float>, y: UnsafeMutablePointer<Float>,
                     alpha: Float = 1, beta: Float = 0) {
        #if canImport(CDNNL)
        // As a one-row product: `yᵀ = xᵀ · Aᵀ` (or `xᵀ · A`).
        let outputs = transpose ? n : m, inputs = transpose ? m : n
        oneDNNProduct(m: 1, n: outputs, k: inputs, a: x, lda: inputs, b: a, ldb: lda, transposeB: !transpose,
                      c: y, ldc: outputs, alpha: alpha, beta: beta)
        #else
        cblas_sgemv(CblasRowMajor, transpose ? CblasTrans : CblasNoTrans,
                    Int32(m), Int32(n), alpha, a, Int32(lda), x, 1, beta, y, 1)
        #endif
    }

    /// `Y[rows×out] = X[rows×in] · Wᵀ + bias`, or `Y +=` with `accumulate` (a residual connection): a linear
    /// layer over `rows` vectors (one row: `sgemv`).
    static func linear(_ x: UnsafePointer<Float>, rows: Int, weight: Tensor, bias: Tensor?,
                       into y: UnsafeMutablePointer<Float>, accumulate: Bool = false, parallel: Parallel = .serial) {
        let out = weight.shape[0], inputs = weight.shape[1], beta: Float = accumulate ? 1 : 0
        if rows == 1 {
            gemv(m: out, n: inputs, a: weight.pointer, lda: inputs, x: x, y: y, beta: beta)
        } else {
            gemm(m: rows, n: out, k: inputs, a: x, lda: inputs, b: weight.pointer, ldb: inputs,
                 transposeB: true, c: y, ldc: out, beta: beta, parallel: parallel)
        }
        if let bias { Vector.addRows(bias.pointer, to: y, rows: rows, columns: out) }
    }
}

/// OpenBLAS run-time settings.
public enum BLASSettings {
    /// The name of the kernel family OpenBLAS picked for this CPU (e.g. "Cooperlake", "Haswell").
    public static var coreName: String {
        guard let name = openblas_get_corename() else { return "unknown" }
        return String(cString: name)
    }

    /// Makes every OpenBLAS call run on its caller's thread, once per process, before the engine's first
    /// product: the engine divides work itself (`Parallel`), and idle OpenBLAS workers would spin beside it.
    public static let singleThreaded: Void = openblas_set_num_threads(1)
}
