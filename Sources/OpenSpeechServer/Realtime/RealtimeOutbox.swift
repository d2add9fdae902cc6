import Synchronization

/// The server events of one Realtime session on their way to its client. A client that sends without reading would
/// otherwise make the server hold every answer: at most `maxPendingBytes` of events may wait for the connection to
/// take them; one more ends the session (`overflowed` fires once, and the route closes the connection) instead of
/// growing the server's memory.
final class RealtimeOutbox: Sendable {
    /// The most event text waiting to be written (a full transcript of a long item is a few kilobytes).
    static let maxPendingBytes = 256 << 10

    /// The events to write, in order; each written one is reported with `written(_:)`.
    let events: AsyncStream<String>
    /// Yields once, when the client stops taking events and the session must end.
    let overflowed: AsyncStream<Void>
    private let continuation: AsyncStream<String>.Continuation
    private let overflow: AsyncStream<Void>.Continuation
    private let pending = Mutex(0)

    init() {
        (events, continuation) = AsyncStream<String>.makeStream()
        (overflowed, overflow) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// Queues an event; past the bound, ends the outbox and reports the overflow instead.
    func yield(_ event: String) {
        let accepted = pending.withLock { pending in
            guard pending + event.utf8.count <= Self.maxPendingBytes else { return false }
            pending += event.utf8.count
            return true
        }
        if accepted {
            continuation.yield(event)
        } else {
            continuation.finish()
            overflow.yield()
            overflow.finish()
        }
    }

    /// The connection took `event`.
    func written(_ event: String) {
        pending.withLock { $0 -= event.utf8.count }
    }

    /// No more events.
    func finish() {
        continuation.finish()
        overflow.finish()
    }
}
