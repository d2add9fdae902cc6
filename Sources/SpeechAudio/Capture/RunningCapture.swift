#if canImport(CPulse)
import Foundation
import Synchronization

/// One `start()`…`stop()` of an engine: the capture and the thread that calls the taps.
final class RunningCapture: Sendable {
    let capture: PulseAudioCapture
    private let flags = Mutex<(failed: Bool, ending: Bool)>((false, false))
    private let deliveryThread = Atomic<UInt>(0)
    private let deliveryFinished = DispatchSemaphore(value: 0)

    init(capture: PulseAudioCapture) { self.capture = capture }

    /// Runs `body` on a new thread: the delivery thread.
    func startDelivery(_ body: @escaping @Sendable () -> Void) {
        let thread = Thread { [self] in
            deliveryThread.store(UInt(pthread_self()), ordering: .releasing)
            body()
            deliveryFinished.signal()
        }
        thread.name = "OpenSpeech audio taps"
        thread.qualityOfService = .userInitiated
        thread.start()
    }

    /// Whether the caller is the delivery thread (inside a tap block).
    var isDeliveryThread: Bool { deliveryThread.load(ordering: .acquiring) == UInt(pthread_self()) }

    var hasFailed: Bool { flags.withLock { $0.failed } }
    var isEnding: Bool { flags.withLock { $0.ending } }
    func markFailed() { flags.withLock { $0.failed = true } }

    /// Ends delivery and capture, releasing the input; waits for the delivery thread unless told not to (when called
    /// from it).
    func end(waitForDelivery: Bool) {
        flags.withLock { $0.ending = true }
        capture.queue.close()
        capture.stop()
        if waitForDelivery {
            deliveryFinished.wait()
            deliveryFinished.signal()
        }
    }
}
#endif
