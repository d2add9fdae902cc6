import Foundation
import Synchronization

/// At most `slots` transcriptions at once, at most `maxQueue` more waiting in arrival order; past that, work is
/// refused at once (429) instead of letting memory and latency grow. After `shutDown()` it takes no new work (503).
///
/// A slot is held as a `Lease`, a queue place as a `QueuePlace`: objects given back exactly once, by their owner when
/// the work ends or, on any path that does not, when the last reference goes, so no path can keep a slot.
final class ConcurrencyLimiter: Sendable {
    let slots: Int
    let maxQueue: Int
    private let state = Mutex(State())
    /// Called with (running, waiting) after every change, for the metrics.
    private let onChange: @Sendable (Int, Int) -> Void

    private struct Waiter {
        let id: Int
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var running = 0
        var waiting: [Waiter] = []
        /// Queue places held by work that is not waiting yet (a Realtime item behind its session's previous item).
        var reserved = 0
        var nextID = 0
        var isShuttingDown = false
        var idleWaiters: [CheckedContinuation<Void, Never>] = []

        var queued: Int { waiting.count + reserved }
        var isIdle: Bool { running == 0 && queued == 0 }
    }

    init(slots: Int, maxQueue: Int, onChange: @escaping @Sendable (Int, Int) -> Void = { _, _ in }) {
        self.slots = max(1, slots)
        self.maxQueue = max(0, maxQueue)
        self.onChange = onChange
    }

    var isShuttingDown: Bool { state.withLock { $0.isShuttingDown } }
    /// Work waiting for a slot, with the places reserved.
    var queueDepth: Int { state.withLock { $0.queued } }
    var running: Int { state.withLock { $0.running } }

    /// Waits for a slot. Throws `APIError` 429 when the queue is full, 503 when shutting down, `CancellationError`
    /// when the task is cancelled while waiting.
    func acquire() async throws -> Lease {
        try await acquire(holdingPlace: false)
        return slotLease()
    }

    /// Takes a queue place now, to wait for a slot later (`QueuePlace.acquire()`): 429 when the queue is full, 503
    /// when shutting down.
    func reserve() throws -> QueuePlace {
        try state.withLock { state in
            if state.isShuttingDown { throw APIError.shuttingDown() }
            guard state.queued < maxQueue else { throw APIError.queueFull(retryAfter: max(1, state.queued / slots)) }
            state.reserved += 1
            report(state)
        }
        return QueuePlace(limiter: self)
    }

    /// Takes a slot only if one is free and nobody waits for one (work that may be skipped: a Realtime item's
    /// volatile decode); never queues.
    func tryAcquire() -> Lease? {
        let taken = state.withLock { state in
            guard !state.isShuttingDown, state.running < slots, state.queued == 0 else { return false }
            state.running += 1
            report(state)
            return true
        }
        return taken ? slotLease() : nil
    }

    /// Refuses new work from now on; waiters and reserved places are refused too (running work finishes).
    func shutDown() {
        let (waiters, idle) = state.withLock { state in
            state.isShuttingDown = true
            let waiters = state.waiting
            state.waiting.removeAll()
            report(state)
            return (waiters, takeIdleWaiters(&state))
        }
        for waiter in waiters { waiter.continuation.resume(throwing: APIError.shuttingDown()) }
        for waiter in idle { waiter.resume() }
    }

    /// Returns once no slot is held and nothing waits or holds a queue place (the drain after `shutDown()`).
    func waitUntilIdle() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let idle = state.withLock { state in
                if state.isIdle { return true }
                state.idleWaiters.append(continuation)
                return false
            }
            if idle { continuation.resume() }
        }
    }

    // MARK: For the leases and places

    fileprivate func slotLease() -> Lease {
        Lease { [self] in releaseSlot() }
    }

    /// Waits for a slot; `holdingPlace`: the caller holds a reserved queue place, which becomes its place in line.
    fileprivate func acquire(holdingPlace: Bool) async throws {
        let id = state.withLock { state -> Int in
            state.nextID += 1
            return state.nextID
        }
        // A refusal or a cancellation may leave the queue empty: whoever waits for idle learns it.
        defer { resumeIdleWaiters() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome: Result<Void, any Error>? = state.withLock { state in
                    if holdingPlace { state.reserved -= 1 }
                    defer { report(state) }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if state.isShuttingDown { return .failure(APIError.shuttingDown()) }
                    if state.running < slots && state.waiting.isEmpty {
                        state.running += 1
                        return .success(())
                    }
                    guard holdingPlace || state.queued < maxQueue else {
                        return .failure(APIError.queueFull(retryAfter: max(1, state.queued / slots)))
                    }
                    state.waiting.append(Waiter(id: id, continuation: continuation))
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                guard let index = state.waiting.firstIndex(where: { $0.id == id }) else { return nil }
                defer { report(state) }
                return state.waiting.remove(at: index)
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Frees a slot, handing it to the first waiter.
    private func releaseSlot() {
        let (next, idle) = state.withLock { state -> (Waiter?, [CheckedContinuation<Void, Never>]) in
            defer { report(state) }
            if state.waiting.isEmpty {
                state.running -= 1
                return (nil, takeIdleWaiters(&state))
            }
            // The slot passes straight to the waiter: `running` stays the same.
            return (state.waiting.removeFirst(), [])
        }
        next?.continuation.resume()
        for waiter in idle { waiter.resume() }
    }

    /// Gives back a reserved queue place that was never used.
    fileprivate func returnPlace() {
        let idle = state.withLock { state in
            state.reserved -= 1
            report(state)
            return takeIdleWaiters(&state)
        }
        for waiter in idle { waiter.resume() }
    }

    private func resumeIdleWaiters() {
        for waiter in state.withLock({ takeIdleWaiters(&$0) }) { waiter.resume() }
    }

    private func takeIdleWaiters(_ state: inout State) -> [CheckedContinuation<Void, Never>] {
        guard state.isIdle else { return [] }
        defer { state.idleWaiters.removeAll() }
        return state.idleWaiters
    }

    private func report(_ state: State) {
        onChange(state.running, state.queued)
    }
}

/// A place in the limiter's queue, held by work that will need a slot once the work before it is done.
final class QueuePlace: Sendable {
    private let limiter: ConcurrencyLimiter
    private let used = Atomic(false)

    fileprivate init(limiter: ConcurrencyLimiter) {
        self.limiter = limiter
    }

    /// Waits in line for a slot, the place becoming the line's position. Throws as `ConcurrencyLimiter.acquire()`
    /// does, but never 429 (the place is already counted). Call it once.
    func acquire() async throws -> Lease {
        precondition(!used.exchange(true, ordering: .acquiringAndReleasing), "a queue place is used once")
        try await limiter.acquire(holdingPlace: true)
        return limiter.slotLease()
    }

    deinit {
        if !used.load(ordering: .acquiring) { limiter.returnPlace() }
    }
}
