#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// Wall time spent in each stage of transcription, summed over the process, when the environment sets
/// `OPENSPEECH_STAGE_TIMES` (profiles for BENCHMARKS.md; `whisper-bench` prints them). Off, each stage costs one
/// branch. Not in Apple's API.
public enum StageTimes {
    public enum Stage: Int, CaseIterable, Sendable {
        /// The audio encoder over a 30 s window.
        case encoder
        /// Each decoder layer's cross-attention keys and values from the encoder output, once per window.
        case crossKeysValues
        /// Decoder layers without cross-attention: embeddings, self-attention with the cache, feed-forward.
        case decoderLayers
        /// Decoder cross-attention over the window's 1500 frames.
        case crossAttention
        /// Final layer norm and the output projection to the vocabulary.
        case outputProjection
        /// Everything `WindowDecoding.decode` does outside the decoder (logit filters, beam bookkeeping, sampling).
        case search

        public var name: String {
            switch self {
            case .encoder: "encoder"
            case .crossKeysValues: "cross-attention keys/values"
            case .decoderLayers: "decoder layers (self-attention, FFN)"
            case .crossAttention: "cross-attention"
            case .outputProjection: "output projection"
            case .search: "search (logit filters, beams)"
            }
        }
    }

    static let enabled: Bool = getenv("OPENSPEECH_STAGE_TIMES").map { $0.pointee != 0 } ?? false

    /// Nanoseconds per stage, and all of `decode` (search is decode minus the decoder's stages).
    private static let totals = Mutex<[UInt64]>(Array(repeating: 0, count: Stage.allCases.count + 1))
    private static let decodeSlot = Stage.allCases.count

    @inline(__always) private static func now() -> UInt64 {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return UInt64(t.tv_sec) * 1_000_000_000 + UInt64(t.tv_nsec)
    }

    @inline(__always) static func measure<T>(_ stage: Stage, _ body: () throws -> T) rethrows -> T {
        try measure(slot: stage.rawValue, body)
    }

    /// The whole of a window's decoding (for `search`).
    @inline(__always) static func measureDecoding<T>(_ body: () throws -> T) rethrows -> T {
        try measure(slot: decodeSlot, body)
    }

    @inline(__always) private static func measure<T>(slot: Int, _ body: () throws -> T) rethrows -> T {
        guard enabled else { return try body() }
        let start = now()
        defer { let elapsed = now() - start; totals.withLock { $0[slot] += elapsed } }
        return try body()
    }

    /// Seconds per stage since the process started (or `reset`), in pipeline order; empty when not enabled.
    public static var seconds: [(stage: Stage, seconds: Double)] {
        guard enabled else { return [] }
        let t = totals.withLock { $0 }
        let inDecoder = t[Stage.decoderLayers.rawValue] + t[Stage.crossAttention.rawValue] + t[Stage.outputProjection.rawValue]
        return Stage.allCases.map { stage in
            let ns = stage == .search ? (t[decodeSlot] > inDecoder ? t[decodeSlot] - inDecoder : 0) : t[stage.rawValue]
            return (stage, Double(ns) / 1e9)
        }
    }

    public static func reset() { totals.withLock { $0 = $0.map { _ in 0 } } }
}
