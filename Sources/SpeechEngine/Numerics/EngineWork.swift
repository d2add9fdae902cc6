import Foundation
import Synchronization

/// The engine's computations and the process's exit. An app may return from `main` (or call `exit`) while a
/// transcription still runs, for example right after stopping a recognition task; `exit` then runs the matrix
/// library's static destructors, which free its generated kernels while a thread still executes them (a crash at
/// exit, every time in `LegacyClientTests.exitWhileRecognizing` before this). So the engine's work runs through
/// `run(_:)`, and an exit handler waits for the running work to end (at most 10 s, so an `exit` called from within
/// engine work is delayed, not hung) and keeps new work from starting. `exit` runs handlers newest first, and the
/// library registers its destructors when it first makes each kernel, so the handler is registered again after the
/// first use of each kind of call and after the 1st, 2nd, 4th, 8th... piece of work (a bounded number of handlers).
package enum EngineWork {
    private static let state = Mutex((running: 0, finished: 0, exiting: false))
    private static let guardedAfterProduct = Atomic(false)
    private static let guardedAfterPrimitive = Atomic(false)

    /// The kinds of matrix-library calls that create static state on first use.
    package enum LibraryUse { case product, primitive }

    /// Runs `body` as engine work. Once the process is exiting, work no longer starts: the calling thread waits for
    /// the process to end.
    package static func run(_ body: () -> Void) {
        let starts = state.withLock { state in
            if !state.exiting { state.running += 1 }
            return !state.exiting
        }
        guard starts else {
            while true { sleep(60) }
        }
        body()
        let finished = state.withLock { state in
            state.running -= 1
            state.finished += 1
            return state.finished
        }
        if finished & (finished - 1) == 0 { atexit { EngineWork.waitForRunningWork() } }
    }

    /// Called after a matrix-library call returns: after the first of each kind, the exit handler is registered
    /// (again).
    @inline(__always) static func didUse(_ use: LibraryUse) {
        switch use {
        case .product: registerExitHandler(once: guardedAfterProduct)
        case .primitive: registerExitHandler(once: guardedAfterPrimitive)
        }
    }

    @inline(__always) private static func registerExitHandler(once flag: borrowing Atomic<Bool>) {
        guard !flag.load(ordering: .relaxed),
              flag.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged else { return }
        atexit { EngineWork.waitForRunningWork() }
    }

    private static func waitForRunningWork() {
        state.withLock { $0.exiting = true }
        var waited = 0
        while state.withLock({ $0.running }) > 0 && waited < 10_000 {
            usleep(1_000)
            waited += 1
        }
    }
}
