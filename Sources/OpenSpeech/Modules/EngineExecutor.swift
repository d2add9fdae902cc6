import Dispatch
import SpeechEngine

/// A serial executor that runs an actor's jobs on a dispatch queue of its own, off Swift's cooperative thread pool:
/// the engine's work (a 30 s window decodes for hundreds of milliseconds) must not hold the pool's few threads, which
/// every task of the process (the analyzer, result consumers, a server's connections) shares. The server's Realtime
/// sessions run on one too. Jobs run as `EngineWork`, so that the process's exit waits for the one running.
package final class EngineExecutor: SerialExecutor {
    private let queue: DispatchQueue

    package init(label: String) {
        queue = DispatchQueue(label: label, qos: .userInitiated)
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        queue.async { EngineWork.run { job.runSynchronously(on: executor) } }
    }

    package func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }
}
