import Dispatch

/// A serial executor on a dispatch queue of its own: a Realtime session's audio work (resampling, the speech
/// detector's model on every 32 ms of audio) runs there, not on Swift's cooperative pool, which the server's
/// connections share.
final class SessionExecutor: SerialExecutor {
    private let queue: DispatchQueue

    init(label: String) {
        queue = DispatchQueue(label: label, qos: .userInitiated)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }
}
