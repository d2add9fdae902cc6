import Foundation

/// At most `slots` transcriptions at once, at most `maxQueue` more waiting in arrival order; past that, `acquire`
/// fails at once (429) instead of letting memory and latency grow. After `shutDown()` it takes no new work (503).
/// A waiting request whose task is cancelled (its client went away) leaves the queue.
actor ConcurrencyLimiter {
    let slots: Int
    let maxQueue: Int
    private(set) var running = 0
    private var waiting: [(id: Int, continuation: CheckedContinuation<Void, any Error>)] = []
    private var nextID = 0
    private(set) var isShuttingDown = false
    /// Called with (running, waiting) after every change, for the metrics.
    private let onChange: @Sendable (Int, Int) -> Void

    init(slots: Int, maxQueue: Int, onChange: @escaping @Sendable (Int, Int) -> Void = { _, _ in }) {
        self.slots = max(1, slots)
        self.maxQueue = max(0, maxQueue)
        self.onChange = onChange
    }

    var queueDepth: Int { waiting.count }

    /// Waits for a slot. Throws `APIError` 429 when the queue is full, 503 when shutting down, `CancellationError`
    /// when the task is cancelled while waiting.
    func acquire() async throws {
        try Task.checkCancellation()
        if isShuttingDown { throw APIError.shuttingDown() }
        if running < slots {
            running += 1
            onChange(running, waiting.count)
            return
        }
        guard waiting.count < maxQueue else {
            throw APIError.queueFull(retryAfter: max(1, waiting.count / slots))
        }
        let id = nextID
        nextID += 1
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                waiting.append((id, continuation))
                onChange(running, waiting.count)
            }
        } onCancel: {
            Task { await self.cancelWaiter(id) }
        }
    }

    /// Takes a slot only if one is free and nobody waits for one (work that may be skipped: a Realtime item's
    /// volatile decode); never queues. Release it with `release()`.
    func tryAcquire() -> Bool {
        guard !isShuttingDown, running < slots, waiting.isEmpty else { return false }
        running += 1
        onChange(running, waiting.count)
        return true
    }

    /// Frees a slot, handing it to the first waiter.
    func release() {
        if waiting.isEmpty {
            running -= 1
        } else {
            // The slot passes straight to the waiter: `running` stays the same.
            waiting.removeFirst().continuation.resume()
        }
        onChange(running, waiting.count)
    }

    /// Refuses new work from now on; waiters are refused too (running work finishes).
    func shutDown() {
        isShuttingDown = true
        for waiter in waiting { waiter.continuation.resume(throwing: APIError.shuttingDown()) }
        waiting.removeAll()
        onChange(running, waiting.count)
    }

    private func cancelWaiter(_ id: Int) {
        guard let index = waiting.firstIndex(where: { $0.id == id }) else { return }
        waiting.remove(at: index).continuation.resume(throwing: CancellationError())
        onChange(running, waiting.count)
    }
}
