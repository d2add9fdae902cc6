import Dispatch
import Foundation
import Synchronization

/// Ctrl-C (SIGINT) and SIGTERM (and any other `signals`): the first calls `handler` so the command can finish
/// cleanly; a second exits at once with status 130.
final class InterruptSignal {
    private let sources: [any DispatchSourceSignal]

    init(signals: [Int32] = [SIGINT, SIGTERM], _ handler: @escaping @Sendable () -> Void) {
        let count = Counter()
        sources = signals.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                if count.increment() > 1 { exit(130) }
                handler()
            }
            source.resume()
            return source
        }
    }

    deinit { sources.forEach { $0.cancel() } }

    private final class Counter: Sendable {
        private let value = Mutex(0)
        func increment() -> Int { value.withLock { $0 += 1; return $0 } }
    }
}
