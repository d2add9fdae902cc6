import Foundation
import Synchronization

/// Frames captured together: interleaved Float32 samples at the source's rate and channel count.
struct CapturedChunk: Sendable {
    var samples: [Float]
    var frameCount: Int
    /// The first frame's position in the engine's stream (frames since the engine first started).
    var startFrame: Int64
    /// When the first frame was captured, on `AVAudioTime`'s host clock.
    var hostTime: UInt64
    /// Frames the queue had dropped when it took this chunk: a gap before a chunk whose count grew is the queue's doing.
    var droppedBefore: Int64 = 0
}

/// What the delivery thread takes from the queue.
enum CaptureEvent: Sendable {
    case audio(CapturedChunk)
    /// Capture ended with this error; nothing follows.
    case failed(AudioError)
}

/// The bounded queue between the capture thread and the thread that calls the taps.
///
/// Capture never waits: when the consumer has fallen `capacityFrames` behind, new chunks are dropped and counted
/// until it has caught up to half that, so each episode is one gap in the chunks' `startFrame`s, not many.
final class CaptureQueue: Sendable {
    let capacityFrames: Int
    private let state = Mutex(State())
    private let available = DispatchSemaphore(value: 0)

    private struct State {
        var events: [CaptureEvent] = []
        var queuedFrames = 0
        var droppedFrames: Int64 = 0
        var closed = false
        var failed = false
        var dropping = false
    }

    init(capacityFrames: Int) { self.capacityFrames = capacityFrames }

    /// Adds a chunk unless the queue is full; returns whether it was kept.
    @discardableResult
    func push(_ chunk: CapturedChunk) -> Bool {
        let kept = state.withLock { state in
            guard !state.closed, !state.failed else { return false }
            if state.dropping && state.queuedFrames <= capacityFrames / 2 { state.dropping = false }
            guard !state.dropping, state.queuedFrames + chunk.frameCount <= capacityFrames else {
                state.dropping = true
                state.droppedFrames += Int64(chunk.frameCount)
                return false
            }
            var chunk = chunk
            chunk.droppedBefore = state.droppedFrames
            state.events.append(.audio(chunk))
            state.queuedFrames += chunk.frameCount
            return true
        }
        if kept { available.signal() }
        return kept
    }

    /// Ends the stream with an error, delivered after the audio already queued.
    func fail(_ error: AudioError) {
        let first = state.withLock { state in
            guard !state.closed, !state.failed else { return false }
            state.failed = true
            state.events.append(.failed(error))
            return true
        }
        if first { available.signal() }
    }

    /// Ends delivery now: queued audio is discarded and `next()` returns nil.
    func close() {
        state.withLock { state in
            state.closed = true
            state.events.removeAll()
            state.queuedFrames = 0
        }
        available.signal()
    }

    /// The next event, waiting for one; nil once closed.
    func next() -> CaptureEvent? {
        while true {
            let event: CaptureEvent?? = state.withLock { state in
                if state.closed { return .some(nil) }
                guard !state.events.isEmpty else { return nil }
                let event = state.events.removeFirst()
                if case .audio(let chunk) = event { state.queuedFrames -= chunk.frameCount }
                return .some(event)
            }
            if let event { return event }
            available.wait()
        }
    }

    /// Frames dropped so far because the consumer was behind.
    var droppedFrames: Int64 { state.withLock { $0.droppedFrames } }
}
