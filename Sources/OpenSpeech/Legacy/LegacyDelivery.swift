import Foundation
import Synchronization

/// A value from the client that Apple's API takes without `Sendable` (a result handler, a delegate).
///
/// `@unchecked Sendable`: the framework only moves it to the recognizer's queue and calls it there through
/// `LegacyDelivery`, which runs one delivery at a time, each after the one before has finished: it is never used
/// from two threads at once, as Apple's callbacks are not.
struct LegacyCallback<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// Runs a task's callbacks on the recognizer's `OperationQueue`, one at a time and in order, even on a queue that
/// runs operations concurrently: each waits until the one before has run. The receiver (a result handler or a
/// delegate, which the task holds as Apple's does) is let go after the last delivery.
///
/// The main operation queue gets its callbacks on the main thread, through the main dispatch queue, as on Apple's
/// platforms (Foundation on Linux runs `OperationQueue.main`'s operations on another thread).
final class LegacyDelivery: Sendable {
    enum Receiver {
        case handler(LegacyCallback<(SFSpeechRecognitionResult?, (any Error)?) -> Void>)
        case delegate(LegacyCallback<any SFSpeechRecognitionTaskDelegate>)

        var handler: ((SFSpeechRecognitionResult?, (any Error)?) -> Void)? {
            if case .handler(let callback) = self { callback.value } else { nil }
        }
        var delegate: (any SFSpeechRecognitionTaskDelegate)? {
            if case .delegate(let callback) = self { callback.value } else { nil }
        }
    }

    private let queue: LegacyCallback<OperationQueue>
    private let receiver: Mutex<LegacyCallback<Receiver>?>
    /// Orders deliveries: each waits here until its operation has run on `queue`.
    private let order = DispatchQueue(label: "OpenSpeech.SFSpeechRecognitionTask.delivery")

    init(queue: OperationQueue, receiver: Receiver) {
        self.queue = LegacyCallback(queue)
        self.receiver = Mutex(LegacyCallback(receiver))
    }

    /// Calls `body` with the receiver on the queue, after every earlier delivery; `finishing`: the last one.
    func send(finishing: Bool = false, _ body: @escaping @Sendable (Receiver) -> Void) {
        order.async { [self] in
            guard let receiver = finishing ? receiver.withLock({ value in defer { value = nil }; return value })
                                           : receiver.withLock({ $0 }) else { return }
            if queue.value === OperationQueue.main {
                let done = DispatchSemaphore(value: 0)
                DispatchQueue.main.async {
                    body(receiver.value)
                    done.signal()
                }
                done.wait()
            } else {
                let operation = BlockOperation { body(receiver.value) }
                queue.value.addOperation(operation)
                operation.waitUntilFinished()
            }
        }
    }
}
