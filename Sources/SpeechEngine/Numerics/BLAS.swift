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
    /// the transpose of `B[n×k]`. With `parallel`, large products are split into row slices of `A` and `C`.
    @inline(__always)
    static func gemm(m: Int, n: Int, k: Int,
                     a: UnsafePointer<Float>, lda: Int,
                     b: UnsafePointer<Float>, ldb: Int, transposeB: Bool,
                     c: UnsafeMutablePointer<Float>, ldc: Int,
                     alpha: Float = 1, beta: Float = 0, parallel: Parallel = .serial) {
        parallel.forEachSlice(of: m, minimumSlice: Self.minimumRowsPerThread) { _, rows in
            #if canImport(CDNNL)
            // A row slice's rows come out bit-identical to the same rows of the whole product (checked by
            // `ProductKernelTests`), so the text does not depend on the number of threads.
            oneDNNProduct(m: rows.count, n: n, k: k, a: a + rows.lowerBound * lda, lda: lda, b: b, ldb: ldb,
                          transposeB: transposeB, c: c + rows.lowerBound * ldc, ldc: ldc, alpha: alpha, beta: beta)
            #else
            cblas_sgemm(CblasRowMajor, CblasNoTrans, transposeB ? CblasTrans : CblasNoTrans,
                        Int32(rows.count), Int32(n), Int32(k), alpha, a + rows.lowerBound * lda, Int32(lda),
                        b, Int32(ldb), beta, c + rows.lowerBound * ldc, Int32(ldc))
            #endif
        }
    }

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

    /// Row slices shorter than this stay on one thread (the packing of `B` would dominate).
    static let minimumRowsPerThread = 64

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
