import Foundation

/// The `openspeech` process's malloc policy, set once at the start of a command that transcribes (glibc only).
///
/// glibc serves a block of 128 KB or more with its own `mmap`, returned to the system when freed, but it raises that
/// threshold (up to 32 MB) to the size of each such block freed, so that from then on blocks of that size come from
/// its heap arenas instead. Transcription frees blocks of 0.1–30 MB every decoding of a window (the window's audio
/// and features, the word-timing pass's attention weights), so after a few windows they all come from the arenas,
/// where their varying sizes and lifetimes across the analyzer's threads leave free memory that is never given back:
/// over an accelerated hour of `listen`, the resident size grew by 250 MB while the memory in use stayed flat
/// (BENCHMARKS.md, "memory flat over an hour"). Fixing the threshold at glibc's initial 128 KB stops that adjustment:
/// large blocks always go back to the system, and the arenas hold only small ones. The cost, an `mmap` and page
/// faults per large block, is a few per decoding, not measurable beside the decoding itself.
///
/// Set by the executable, not the library: a process embedding OpenSpeech keeps its own allocator settings (the same
/// call, or `MALLOC_MMAP_THRESHOLD_=131072` in its environment, gives it the same behaviour). An explicit
/// `MALLOC_MMAP_THRESHOLD_` or `GLIBC_TUNABLES` in the environment wins: then nothing is changed.
enum AllocatorPolicy {
    /// The fixed mmap threshold, in bytes: glibc's own initial value.
    static let mmapThreshold: Int32 = 128 * 1024

    /// Applies the policy (once per process; later calls change nothing). Returns whether it was set.
    @discardableResult
    static func apply() -> Bool { applied }

    private static let applied: Bool = {
        #if os(Linux)
        let environment = ProcessInfo.processInfo.environment
        if environment["MALLOC_MMAP_THRESHOLD_"] != nil || environment["GLIBC_TUNABLES"] != nil { return false }
        // mallopt is not in Swift's Glibc module: looked up by name (absent with another C library).
        typealias MallocOption = @convention(c) (Int32, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return false }
        let mmapThresholdOption: Int32 = -3  // M_MMAP_THRESHOLD in <malloc.h>
        return unsafeBitCast(symbol, to: MallocOption.self)(mmapThresholdOption, mmapThreshold) == 1
        #else
        return false
        #endif
    }()
}
