import Foundation

/// Merges concurrent installs of one model in this process: the first caller starts the work, later callers
/// wait for the same result and receive the same progress. The work is cancelled only when every caller has
/// cancelled.
actor InstallCoordinator {
    static let shared = InstallCoordinator()

    typealias ProgressHandler = @Sendable (Int64, Int64) -> Void

    private final class Job {
        let task: Task<URL, any Error>
        var waiters = 0
        var observers: [UUID: ProgressHandler] = [:]
        var last: (Int64, Int64) = (0, 0)
        init(task: Task<URL, any Error>) { self.task = task }
    }

    private var jobs: [String: Job] = [:]

    /// Whether an install of `key` is running in this process.
    func isInstalling(_ key: String) -> Bool { jobs[key] != nil }

    /// Joins the install of `key`, starting it with `work` if none is running.
    func install(_ key: String, progress: ProgressHandler?,
                 work: @escaping @Sendable (_ report: @escaping ProgressHandler) async throws -> URL) async throws -> URL {
        let job: Job
        if let existing = jobs[key] {
            job = existing
        } else {
            let coordinator = self
            let task = Task<URL, any Error> {
                try await work { completed, total in
                    Task { await coordinator.publish(key, completed, total) }
                }
            }
            job = Job(task: task)
            jobs[key] = job
        }
        let observer = UUID()
        job.waiters += 1
        if let progress {
            job.observers[observer] = progress
            if job.last.1 > 0 { progress(job.last.0, job.last.1) }
        }
        let task = job.task
        return try await withTaskCancellationHandler {
            defer { leave(key, observer: observer) }
            let outcome = await task.result
            // Over before any caller has its outcome: `isInstalling` must not report an install that returned (it
            // did when the job was removed by a task of its own, after the callers had resumed).
            if jobs[key] === job { jobs[key] = nil }
            let url = try outcome.get()
            try Task.checkCancellation()
            return url
        } onCancel: {
            Task { await self.cancel(key, observer: observer) }
        }
    }

    private func publish(_ key: String, _ completed: Int64, _ total: Int64) {
        guard let job = jobs[key] else { return }
        guard completed >= job.last.0 || total != job.last.1 else { return }
        job.last = (completed, total)
        for observer in job.observers.values { observer(completed, total) }
    }

    private func leave(_ key: String, observer: UUID) {
        jobs[key]?.observers[observer] = nil
    }

    private func cancel(_ key: String, observer: UUID) {
        guard let job = jobs[key] else { return }
        job.observers[observer] = nil
        job.waiters -= 1
        if job.waiters <= 0 { job.task.cancel() }
    }
}
