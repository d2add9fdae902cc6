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
        runs(dnnl_cpu_isa_avx512_core_bf16)
        #else
        false
        #endif
    }

    /// Whether oneDNN's int8 kernels here have VNNI dot products (AVX-512 VNNI or AVX2 VNNI, within any
    /// `ONEDNN_MAX_CPU_ISA` limit): exact int32 sums, and weights used in place (without, the `int8` type runs the
    /// decoder's products in the engine's own AVX2 kernel, `Int8Matrix`).
    public static var hasVNNI: Bool {
        #if canImport(CDNNL)
        runs(dnnl_cpu_isa_avx512_core_vnni) || runs(dnnl_cpu_isa_avx2_vnni)
        #else
        false
        #endif
    }

    /// Whether oneDNN's bf16 and int8 kernels here use AMX tiles (within any `ONEDNN_MAX_CPU_ISA` limit): for
    /// products of enough rows; products of a few rows run on AVX-512 kernels.
    public static var hasAMX: Bool {
        #if canImport(CDNNL)
        runs(dnnl_cpu_isa_avx512_core_amx)
        #else
        false
        #endif
    }

    #if canImport(CDNNL)
    /// Whether oneDNN's effective instruction set here (within any `ONEDNN_MAX_CPU_ISA` limit) includes `isa`.
    private static func runs(_ isa: dnnl_cpu_isa_t) -> Bool {
        dnnl_get_effective_cpu_isa().rawValue & isa.rawValue == isa.rawValue
    }
    #endif

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
