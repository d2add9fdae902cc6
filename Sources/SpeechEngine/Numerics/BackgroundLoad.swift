import Foundation
import Synchronization

/// Work started on a thread of its own at creation, its result (or error) taken with `value()`, which waits for
/// it: a part of a model's load that runs beside another (the tokenizer beside the weights). A thread of its own,
/// not a dispatch queue's: the loader waits for it, and a queue whose threads are all busy (the engine's parallel
/// loops, other loads waiting the same way) would make that wait as long as their work. A value never taken (an
/// earlier part of the load failed) is computed all the same, then dropped.
final class BackgroundLoad<Value: Sendable>: Sendable {
    private let result = Mutex<Result<Value, any Error>?>(nil)
    private let done = DispatchSemaphore(value: 0)

    init(_ work: @escaping @Sendable () throws -> Value) {
        let thread = Thread { [self] in
            let outcome = Result { try work() }
            result.withLock { $0 = outcome }
            done.signal()
        }
        thread.start()
    }

    /// The work's result, once it has finished; its error rethrown.
    func value() throws -> Value {
        done.wait()
        done.signal()  // a second call returns at once
        return try result.withLock { $0! }.get()
    }
}
