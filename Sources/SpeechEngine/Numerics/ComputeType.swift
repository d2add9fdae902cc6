/// The precision a model's matrix products run in, named as CTranslate2 names its compute types.
///
/// Every stored type (fp16, fp32, int8 CTranslate2 directories) is converted at load to the chosen one.
/// Activations stay fp32 between products; only the products' inputs and weights change precision.
public enum ComputeType: String, Sendable, CaseIterable, CustomStringConvertible {
    /// The fastest type this CPU and build run: `int8` with oneDNN (measured 1.5–1.65× faster-whisper int8 with
    /// VNNI, 1.5–1.6× by CPU time on plain AVX2, BENCHMARKS.md), else `float16`.
    case auto
    /// int8 weights with a scale per output channel; activations quantized per row at run time, products in int32
    /// (VNNI where the CPU has it), results in fp32; token embeddings looked up in half precision (CTranslate2 looks
    /// them up in the int8 matrix: measured less accurate here). Scales, rounding and rescaling are CTranslate2's on
    /// x86 (fp32 rounding elsewhere is still enough to change words: BENCHMARKS.md). Without VNNI (plain AVX2) the
    /// decoder's few-row products run in the engine's own AVX2 int8 kernel (`Int8Matrix`: oneDNN's int8 kernels there
    /// copy the weights on every such product), the encoder's in oneDNN. Needs oneDNN.
    case int8
    /// The same as `int8` on CPUs (CTranslate2's name for int8 weights with fp32 elsewhere).
    case int8Float32 = "int8_float32"
    /// bfloat16 weights and product inputs, fp32 results; only where the CPU has bf16 instructions (else `float32`).
    case bfloat16
    /// The decoder's weights in half precision (exact for fp16 files), widened as they stream by the engine's own
    /// kernels, fp32 elsewhere (oneDNN where present, else BLAS): the decoder reads half the bytes of `float32`.
    case float16
    /// fp32 weights and products (oneDNN where present, else BLAS).
    case float32

    public var description: String { rawValue }

    /// The type the default model load uses: `float32`, whose transcripts match faster-whisper's at
    /// `compute_type="float32"` token for token on ≥ 90 % of clips (the parity tests).
    public static let `default` = ComputeType.float32

    /// What `self` becomes on this machine: `auto` and unavailable types resolved to the ones that run.
    public var resolved: ComputeType {
        switch self {
        case .auto: return MatrixBackend.hasOneDNN ? .int8 : .float16
        case .int8Float32: return MatrixBackend.hasOneDNN ? .int8 : .float16
        case .int8: return MatrixBackend.hasOneDNN ? .int8 : .float16
        case .bfloat16: return MatrixBackend.hasBFloat16 ? .bfloat16 : .float32
        case .float16, .float32: return self
        }
    }
}
