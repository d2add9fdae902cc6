import Foundation

/// The `openspeech` process's malloc policy, set at the start of a command that transcribes (glibc only).
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
/// A process that transcribes one file and ends is the exception: there the adjustment is what a short run wants (its
/// buffers are reused instead of faulted in afresh each window: 74 k page faults for an 8.7 s file on tiny.en), and the
/// growth it causes has no time to matter. `apply(oneFile: true)` keeps every block below 128 MB in the arenas and
/// freed memory there (up to 512 MB): one invocation per file ran 6 % faster (BENCHMARKS.md, "one invocation per file,
/// FFmpeg on first use"). One long recording in one invocation grows as `listen` did, by its length.
///
/// Set by the executable, not the library: a process embedding OpenSpeech keeps its own allocator settings (the same
/// call, or `MALLOC_MMAP_THRESHOLD_=131072` in its environment, gives it the same behaviour). An explicit
/// `MALLOC_MMAP_THRESHOLD_` or `GLIBC_TUNABLES` in the environment wins: then nothing is changed.
enum AllocatorPolicy {
    /// The fixed mmap threshold, in bytes: glibc's own initial value.
    static let mmapThreshold: Int32 = 128 * 1024
    /// For one file: blocks below this come from the arenas, which give memory back only above `oneFileTrimThreshold`.
    static let oneFileMmapThreshold: Int32 = 128 << 20
    static let oneFileTrimThreshold: Int32 = 512 << 20

    /// Applies the policy, once per process, at the start of a command; `oneFile` for a run that transcribes a single
    /// file and ends. Returns whether it was set.
    @discardableResult
    static func apply(oneFile: Bool = false) -> Bool {
        #if os(Linux)
        let environment = ProcessInfo.processInfo.environment
        if environment["MALLOC_MMAP_THRESHOLD_"] != nil || environment["GLIBC_TUNABLES"] != nil { return false }
        // mallopt is not in Swift's Glibc module: looked up by name (absent with another C library).
        typealias MallocOption = @convention(c) (Int32, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return false }
        let mallopt = unsafeBitCast(symbol, to: MallocOption.self)
        let (trimThresholdOption, mmapThresholdOption): (Int32, Int32) = (-1, -3)  // M_TRIM_THRESHOLD, M_MMAP_THRESHOLD
        guard oneFile else { return mallopt(mmapThresholdOption, mmapThreshold) == 1 }
        return mallopt(mmapThresholdOption, oneFileMmapThreshold) == 1 && mallopt(trimThresholdOption, oneFileTrimThreshold) == 1
        #else
        return false
        #endif
    }
}
