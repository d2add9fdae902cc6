import Foundation
@testable import OpenSpeechServer
import Testing

/// The slots, queue places and uploads a request holds are given back on every path, by construction.
@Suite struct ConcurrencyLimiterTests {
    @Test("a slot comes back when its lease is released or dropped, once; a full queue refuses with 429; a waiter gets the freed slot")
    func slotsAndQueue() async throws {
        let limiter = ConcurrencyLimiter(slots: 1, maxQueue: 1)
        var held: Lease? = try await limiter.acquire()
        #expect(limiter.running == 1)
        let waiter = Task { try await limiter.acquire() }
        while limiter.queueDepth == 0 { await Task.yield() }
        await #expect(throws: APIError.self) { _ = try await limiter.acquire() }
        held = nil  // dropped, never released: the slot passes to the waiter
        let second = try await waiter.value
        #expect(limiter.running == 1 && limiter.queueDepth == 0)
        second.release()
        second.release()
        #expect(limiter.running == 0)
        _ = held
    }

    @Test("a reserved place counts against the queue until used or dropped; a cancelled waiter leaves; the drain waits for idle")
    func placesCancellationAndDrain() async throws {
        let limiter = ConcurrencyLimiter(slots: 1, maxQueue: 2)
        let slot = try await limiter.acquire()
        var place: QueuePlace? = try limiter.reserve()
        let other = try limiter.reserve()
        #expect(limiter.queueDepth == 2)
        #expect(throws: APIError.self) { _ = try limiter.reserve() }
        place = nil
        #expect(limiter.queueDepth == 1)
        let waiting = Task { try await other.acquire() }
        while limiter.queueDepth != 1 || limiter.running != 1 { await Task.yield() }
        waiting.cancel()
        await #expect(throws: CancellationError.self) { _ = try await waiting.value }
        #expect(limiter.queueDepth == 0)

        limiter.shutDown()
        #expect(limiter.isShuttingDown)
        await #expect(throws: APIError.self) { _ = try await limiter.acquire() }
        let drained = Task { await limiter.waitUntilIdle() }
        try await Task.sleep(nanoseconds: 50_000_000)
        slot.release()
        await drained.value
        #expect(limiter.running == 0)
        _ = place
    }

    @Test("uploads in progress are bounded; a place comes back with its folder")
    func uploads() throws {
        let uploads = UploadLimit(maxUploads: 2)
        let first = try uploads.admit()
        var second: Lease? = try uploads.admit()
        #expect(throws: APIError.self) { _ = try uploads.admit() }
        second = nil
        #expect(uploads.inProgress == 1)
        first.release()
        #expect(uploads.inProgress == 0)
        _ = second
    }
}

/// The Realtime session's reading pace.
@Suite struct MessagePacingTests {
    @Test("a burst of 400 messages is read at once; past it, 200 a second")
    func pacing() {
        var pacing = MessagePacing()
        let start = ContinuousClock.now
        for _ in 0..<400 { #expect(pacing.wait(at: start) == .zero) }
        let wait = pacing.wait(at: start)
        #expect(wait > .milliseconds(4) && wait < .milliseconds(6), "\(wait)")
        // A second later the bucket has 200 more.
        var later = pacing
        for _ in 0..<199 { #expect(later.wait(at: start + .seconds(1)) == .zero) }
        #expect(later.wait(at: start + .seconds(1)) > .zero)
        // A client at 50 messages a second is never slowed.
        var steady = MessagePacing()
        for index in 0..<5_000 { #expect(steady.wait(at: start + .milliseconds(20 * index)) == .zero) }
    }
}
