import Synchronization

/// At most `maxSessions` Realtime sessions open at once: a session holds its connection, a speech detector, up to
/// 10 minutes of uncommitted audio and, while speech is arriving, a volatile transcription, whether or not its
/// items are being transcribed; the transcriptions themselves share the server's slots. A connection over the
/// limit is refused (an `error` event with code `session_limit_reached`, then a close with code 1013, "try again
/// later"), as the HTTP routes answer 429. A draining server ends the sessions still open (`endAll()`).
final class RealtimeSessionLimit: Sendable {
    let maxSessions: Int
    /// Each open session's way to end it, by the session's number.
    private let open = Mutex<(next: Int, enders: [Int: @Sendable () -> Void])>((0, [:]))

    init(maxSessions: Int) {
        self.maxSessions = max(1, maxSessions)
    }

    /// A place for a new session, given back when the lease is released (or dropped); nil when all are taken.
    /// `end` ends the session when the server drains.
    func tryOpen(end: @escaping @Sendable () -> Void) -> Lease? {
        let number = open.withLock { open -> Int? in
            guard open.enders.count < maxSessions else { return nil }
            open.next += 1
            open.enders[open.next] = end
            return open.next
        }
        guard let number else { return nil }
        return Lease { [self] in _ = open.withLock { $0.enders.removeValue(forKey: number) } }
    }

    var openSessions: Int { open.withLock { $0.enders.count } }

    /// Ends every open session (the server is draining and its transcriptions are done).
    func endAll() {
        for end in open.withLock({ Array($0.enders.values) }) { end() }
    }

    /// The refusal sent to a connection over the limit.
    func refusal() -> RealtimeEventError {
        RealtimeEventError(code: "session_limit_reached", "The server has \(maxSessions) Realtime sessions open, its "
                           + "limit: retry later, or raise `--max-realtime-sessions`.", type: "rate_limit_error")
    }
}
