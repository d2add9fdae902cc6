import CVectorKernels

/// Which compiled variant runs the engine's element-wise loops (softmax, GELU, layer norm, int8 row quantization,
/// fp16 widening): C kernels built once per x86 instruction-set level (portable, AVX2, AVX-512) and chosen on first
/// use for the CPU at hand, within `OPENSPEECH_MAX_CPU_ISA` or else `ONEDNN_MAX_CPU_ISA`. Every variant computes the
/// same lanes in the same order, so the results are the same bits whichever runs.
public enum VectorKernels {
    /// Instruction-set levels with a compiled variant.
    public enum Level: Int, Sendable, CaseIterable, Comparable {
        case portable = 0, avx2 = 1, avx512 = 2

        public static func < (a: Level, b: Level) -> Bool { a.rawValue < b.rawValue }

        /// "portable", "AVX2", "AVX-512".
        public var name: String { String(cString: openspeech_vk_level_name(openspeech_vk_level(UInt32(rawValue)))) }
    }

    /// The level in use in this process.
    public static var level: Level { Level(rawValue: Int(openspeech_vk_current_level().rawValue)) ?? .portable }

    /// The best level this CPU has, ignoring any limit.
    public static var cpuLevel: Level { Level(rawValue: Int(openspeech_vk_cpu_level().rawValue)) ?? .portable }

    /// The level an ISA limit in oneDNN's spelling allows (`AVX2`, `AVX512_CORE`, `SSE41`...); nil for no limit.
    static func level(forLimit name: String) -> Level? {
        Level(rawValue: Int(openspeech_vk_limit_level(name)))
    }

    /// Uses `level` (at most the CPU's) from now on; returns the level set. For tests comparing the variants.
    @discardableResult
    static func use(_ level: Level) -> Level {
        Level(rawValue: Int(openspeech_vk_set_level(openspeech_vk_level(UInt32(level.rawValue))).rawValue)) ?? .portable
    }
}
