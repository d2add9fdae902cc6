import Dispatch

/// How the engine spreads one product or loop over threads.
///
/// oneDNN and OpenBLAS always run on their caller's thread (`OneDNN.useCallerThreadOnly`,
/// `BLASSettings.singleThreaded`): OpenBLAS's idle workers spin on
/// the other cores between products (measured: a fifth of all CPU time in `sched_yield` here), slowing
/// the Swift loops that run between them. Instead the engine splits each large product by rows and each
/// large loop by slices; products run in fixed row blocks (`BLAS.rowBlock`), so their bits do not depend on `threads`.
struct Parallel: Sendable {
    /// Threads working at once (1: everything on the caller's thread).
    let threads: Int

    static let serial = Parallel(threads: 1)

    init(threads: Int) { self.threads = max(1, threads) }

    /// Calls `body(slice, range)` for consecutive ranges covering `0..<count`, at most `threads` of them
    /// at once, none shorter than `minimumSlice` (so small work stays on the caller's thread).
    func forEachSlice(of count: Int, minimumSlice: Int, _ body: (_ slice: Int, _ range: Range<Int>) -> Void) {
        let parts = sliceCount(of: count, minimumSlice: minimumSlice)
        guard parts > 1 else {
            if count > 0 { body(0, 0..<count) }
            return
        }
        // Safe to share: `concurrentPerform` returns only after every call has finished (the closure
        // never outlives this frame), and callers write only the disjoint rows of their own slice.
        nonisolated(unsafe) let work = body
        DispatchQueue.concurrentPerform(iterations: parts) { slice in
            work(slice, count * slice / parts ..< count * (slice + 1) / parts)
        }
    }

    /// `body(0) ... body(count - 1)` in order, computed on up to `threads` threads at once; the first error thrown
    /// (by index) is rethrown.
    func map<T>(_ count: Int, _ body: (Int) throws -> T) throws -> [T] {
        var results = [Result<T, any Error>?](repeating: nil, count: count)
        results.withUnsafeMutableBufferPointer { results in
            // Safe to share: each slice writes only its own indices, and every slice has finished on return.
            nonisolated(unsafe) let results = results
            forEachSlice(of: count, minimumSlice: 1) { _, range in
                for i in range { results[i] = Result { try body(i) } }
            }
        }
        return try results.map { try $0!.get() }
    }

    /// How many slices `forEachSlice(of:minimumSlice:)` uses for `count` items (scratch per slice).
    func sliceCount(of count: Int, minimumSlice: Int) -> Int {
        Swift.max(1, Swift.min(threads, count / Swift.max(minimumSlice, 1)))
    }
}
