#if canImport(CDNNL)
import CDNNL
#endif
import CBLAS

/// Which library runs the engine's products in this process, and what it can do here: oneDNN where the build found
/// it (x86 Linux), else BLAS (OpenBLAS; Accelerate on Apple). Nothing else in the engine asks.
public enum MatrixBackend {
    /// Whether oneDNN runs the products (int8, bf16 and fp32 kernels chosen for this CPU at run time).
    public static var hasOneDNN: Bool {
        #if canImport(CDNNL)
        true
        #else
        false
        #endif
    }

    /// Whether this CPU has bf16 dot products (AVX-512 BF16 or AMX), within any `ONEDNN_MAX_CPU_ISA` limit.
    public static var hasBFloat16: Bool {
        #if canImport(CDNNL)
        let isa = dnnl_get_effective_cpu_isa().rawValue
        let bf16 = dnnl_cpu_isa_avx512_core_bf16.rawValue
        return isa & bf16 == bf16
        #else
        false
        #endif
    }

    /// Whether oneDNN runs AVX-512 here (within any `ONEDNN_MAX_CPU_ISA` limit): its float32 products are then twice as
    /// wide as with AVX2.
    public static var hasAVX512: Bool {
        #if canImport(CDNNL)
        let isa = dnnl_get_effective_cpu_isa().rawValue
        let avx512 = dnnl_cpu_isa_avx512_core.rawValue
        return isa & avx512 == avx512
        #else
        false
        #endif
    }

    /// Whether oneDNN's int8 kernels here have VNNI dot products (AVX-512 VNNI or AVX2 VNNI, within any
    /// `ONEDNN_MAX_CPU_ISA` limit): exact int32 sums, and weights used in place (without, the `int8` type runs the
    /// decoder's products in the engine's own AVX2 kernel, `Int8Matrix`).
    public static var hasVNNI: Bool {
        #if canImport(CDNNL)
        let isa = dnnl_get_effective_cpu_isa().rawValue
        let avx512 = dnnl_cpu_isa_avx512_core_vnni.rawValue, avx2 = dnnl_cpu_isa_avx2_vnni.rawValue
        return isa & avx512 == avx512 || isa & avx2 == avx2
        #else
        false
        #endif
    }

    /// One line for logs and benchmark reports: the library, the instruction set it uses here (BLAS's kernels without
    /// oneDNN), the element-wise level.
    public static var description: String {
        #if canImport(CDNNL)
        "oneDNN \(OneDNN.versionString) (\(OneDNN.isaName)) for every product; element-wise \(VectorKernels.level.name)"
        #else
        "OpenBLAS \(BLASSettings.coreName) kernels; element-wise \(VectorKernels.level.name)"
        #endif
    }

    /// Once per process before the first product: BLAS runs on its caller's thread (the engine splits work itself).
    static let prepare: Void = {
        BLASSettings.singleThreaded
        EngineLog.describeBackend
        #if canImport(CDNNL)
        OneDNN.useCallerThreadOnly()
        #endif
    }()
}
