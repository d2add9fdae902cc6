import Synchronization

/// Something a request holds (a transcription slot, an upload's folder, a place among the uploads in progress), given
/// back exactly once: by `release()` when the holder is done, or when the last reference goes, whichever comes first.
/// So no path a request can take (answered, streamed, its streaming body never run, its client reset at any instant, a
/// handler throwing) keeps what it took.
package final class Lease: Sendable {
    private let giveBack: Mutex<(@Sendable () -> Void)?>

    init(_ giveBack: @escaping @Sendable () -> Void) {
        self.giveBack = Mutex(giveBack)
    }

    /// Gives the resource back; later calls do nothing.
    package func release() {
        let action = giveBack.withLock { action in
            defer { action = nil }
            return action
        }
        action?()
    }

    deinit {
        release()
    }
}
