@testable import OpenSpeechServer
import Testing

/// Which requests a server without a key serves.
@Suite struct OriginPolicyTests {
    @Test("loopback origins and hosts, IP addresses and allowed origins pass; other origins, `null` and other host names do not; `*` allows all")
    func policy() {
        let policy = OriginPolicy(allowedOrigins: ["https://app.example.com/"])
        let passes: [(String?, String?)] = [
            (nil, nil), (nil, "127.0.0.1:8000"), (nil, "localhost"), (nil, "[::1]:8000"), (nil, "10.1.2.3:8000"),
            (nil, "[fe80::1]"), ("http://localhost:3000", "localhost:8000"), ("http://127.0.0.1:5173", "127.0.0.1:8000"),
            ("http://[::1]:8080", "[::1]:8000"), ("https://app.example.com", "app.example.com"),
            ("HTTPS://APP.EXAMPLE.COM", "10.0.0.1"), ("http://dev.localhost:3000", "localhost"),
        ]
        for (origin, host) in passes {
            #expect(policy.permits(origin: origin, host: host), "\(origin ?? "-") \(host ?? "-")")
        }
        let refused: [(String?, String?)] = [
            ("https://evil.example", "127.0.0.1:8000"), ("null", "localhost"), (nil, "evil.example"),
            (nil, "evil.example:8000"), ("http://127.0.0.1.evil.example", "localhost"), (nil, "localhost.evil.example"),
            ("https://app.example.com.evil.example", "localhost"), ("http://192.168.1.5:8000", "localhost"),
        ]
        for (origin, host) in refused {
            #expect(!policy.permits(origin: origin, host: host), "\(origin ?? "-") \(host ?? "-")")
        }
        #expect(OriginPolicy(allowedOrigins: ["*"]).permits(origin: "https://evil.example", host: "evil.example"))
    }
}
