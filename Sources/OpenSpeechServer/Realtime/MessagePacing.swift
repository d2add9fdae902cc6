/// How fast a Realtime session takes its client's messages: `rate` a second on average, in bursts of up to `burst`
/// (a token bucket). Past that the session stops reading for a while, so TCP slows the client down: a client that
/// floods the socket with small messages gets that many parsed and answered a second, not all of them at the cost of
/// the transcriptions. A real client sends an audio chunk every 20 to 100 ms; a client sending a file as fast as it
/// can is paced to `rate` chunks a second, each up to the message limit. A pure value type, tested without a clock.
struct MessagePacing: Sendable {
    static let rate = 200.0
    static let burst = 400.0

    private var tokens = Self.burst
    private var last: ContinuousClock.Instant?

    /// Takes one message at `now`: how long to wait before reading it (zero when the bucket has a token).
    mutating func wait(at now: ContinuousClock.Instant) -> Duration {
        if let last {
            let elapsed = now - last
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
            tokens = min(Self.burst, tokens + seconds * Self.rate)
        }
        last = now
        tokens -= 1
        guard tokens < 0 else { return .zero }
        return .nanoseconds(Int64(-tokens / Self.rate * 1e9))
    }
}
