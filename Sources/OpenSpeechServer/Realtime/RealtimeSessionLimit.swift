import Synchronization

/// At most `maxSessions` Realtime sessions open at once: a session holds its connection, a speech detector, up to
/// 10 minutes of uncommitted audio and, while speech is arriving, a volatile transcription, whether or not its
/// items are being transcribed; the transcriptions themselves share the server's slots. A connection over the
/// limit is refused (an `error` event with code `session_limit_reached`, then a close with code 1013, "try again
/// later"), as the HTTP routes answer 429.
final class RealtimeSessionLimit: Sendable {
    let maxSessions: Int
    private let open = Mutex(0)

    init(maxSessions: Int) {
        self.maxSessions = max(1, maxSessions)
    }

    /// Takes a place for a new session; false when all are taken.
    func tryOpen() -> Bool {
        open.withLock { open in
            guard open < maxSessions else { return false }
            open += 1
            return true
        }
    }

    /// Frees the place of a session that ended.
    func close() {
        open.withLock { $0 = max(0, $0 - 1) }
    }

    var openSessions: Int { open.withLock { $0 } }

    /// The refusal sent to a connection over the limit.
    func refusal() -> RealtimeEventError {
        RealtimeEventError(code: "session_limit_reached", "The server has \(maxSessions) Realtime sessions open, its "
                           + "limit: retry later, or raise `--max-realtime-sessions`.", type: "rate_limit_error")
    }
}
