import Foundation
import Testing
import TestSupport

/// The attacks of issue 40, each against the real server on loopback from raw sockets (Clients/hostile_clients.py),
/// with one transcription slot and one queue place: none may take the server down, keep a slot or a folder, or hold
/// up a shutdown.
@Suite(.serialized) struct HostileClientTests {
    /// Runs a hostile client against `server` and returns what it printed.
    static func attack(_ server: RunningServer, _ mode: String, _ arguments: [String] = [],
                       key: String = RunningServer.apiKey) async throws -> [String: Any] {
        try await attack(port: server.port, mode, arguments, key: key)
    }

    static func attack(port: Int, _ mode: String, _ arguments: [String] = [],
                       key: String = RunningServer.apiKey) async throws -> [String: Any] {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Clients/hostile_clients.py")
        let result = try await runCommand("python3", [script.path, "127.0.0.1", String(port), key, mode] + arguments)
        return try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
    }

    /// A metric's value from `/metrics`.
    static func metric(_ server: RunningServer, _ name: String) async throws -> Double? {
        let body = try await curl("\(server.baseURL)/metrics", [], key: nil).body
        return body.split(separator: "\n").first { $0.hasPrefix("openspeech_\(name) ") }
            .flatMap { $0.split(separator: " ").last }.flatMap { Double($0) }
    }

    /// A server with one slot and one queue place, and a 3 s request timeout, for `body`.
    static func serve(_ arguments: [String] = [], apiKey: String? = RunningServer.apiKey,
                      _ body: (RunningServer) async throws -> Void) async throws {
        try await RunningServer.with(["--max-concurrency", "1", "--max-queue", "1", "--request-timeout", "3"] + arguments,
                                     apiKey: apiKey, body)
    }

    @Test("streamed uploads reset at any instant keep no slot and no folder: a normal request after ten of them gets 200")
    func resetStreams() async throws {
        let clip = try #require(Corpus.item("jfk"))
        try await Self.serve { server in
            _ = try await Self.attack(server, "reset-streams", ["10", clip.wav16kURL.path, "0,0.01,0.03,0.1,0.3"])
            // The slot is freed when the transcription notices its client left (at its next window at most).
            let deadline = Date().addingTimeInterval(20)
            while Date() < deadline {
                let running = try await Self.metric(server, "transcriptions_running")
                let uploading = try await Self.metric(server, "uploads_in_progress")
                if running == 0 && uploading == 0 && server.leftovers().isEmpty { break }
                try await Task.sleep(nanoseconds: 100_000_000)
            }
            #expect(try await Self.metric(server, "transcriptions_running") == 0)
            #expect(try await Self.metric(server, "uploads_in_progress") == 0)
            #expect(server.leftovers().isEmpty, "upload folders left: \(server.leftovers())")
            let next = try await curl("\(server.baseURL)/v1/audio/transcriptions", ["-F", "file=@\(clip.wav16kURL.path)",
                                                                              "--max-time", "30"])
            #expect(next.status == 200, "\(next.body)")
            #expect(wordErrorRate(next.json?["text"] as? String ?? "", clip.transcript) <= 0.1, "\(next.body)")
        }
    }

    @Test("bodies that cannot be a form (no boundary, another type, 200 KB) are answered 400 at once and the connection closes; a 64 KB prompt is answered within seconds; too many hotwords get a sentence")
    func refusedBodiesAndBoundedFields() async throws {
        let clip = try #require(Corpus.item("jfk"))
        try await Self.serve { server in
            for mode in ["no-boundary", "wrong-type"] {
                let answer = try await Self.attack(server, mode, ["200000"])
                #expect(answer["status"] as? Int == 400, "\(mode): \(answer)")
                #expect((answer["seconds"] as? Double ?? 99) < 5, "\(mode): \(answer)")
                #expect(answer["closed"] as? Bool == true, "\(mode): \(answer)")
                #expect((answer["body"] as? String)?.contains("invalid_content_type") == true, "\(mode): \(answer)")
            }
            let prompt = try await Self.attack(server, "long-field", ["65536", clip.wav16kURL.path, "prompt"])
            #expect(prompt["status"] as? Int == 200, "\(prompt)")
            #expect((prompt["seconds"] as? Double ?? 99) < 20, "a 64 KB prompt took \(prompt["seconds"] ?? "?") s")
            let hotwords = try await Self.attack(server, "long-field", ["4096", clip.wav16kURL.path, "hotwords"])
            #expect(hotwords["status"] as? Int == 400, "\(hotwords)")
            #expect((hotwords["body"] as? String)?.contains("at most 64 characters") == true, "\(hotwords)")
        }
    }

    @Test("HTTP hygiene: slow heads and idle connections closed after --request-timeout; ambiguous framing 400, huge heads 431, each closing the connection")
    func slowHeadsAndFraming() async throws {
        try await Self.serve { server in
            let slow = try await Self.attack(server, "slow-headers", ["20", "15"])
            let closedAfter = try #require(slow["closed_after"] as? [Any])
            #expect(closedAfter.count == 20)
            for value in closedAfter {
                let seconds = try #require(value as? Double, "a slow connection was never closed: \(slow)")
                #expect(seconds >= 2 && seconds < 8, "\(slow)")
            }
            let idle = try await Self.attack(server, "idle", ["15"])
            #expect(idle["closed"] as? Bool == true && (idle["after"] as? Double ?? 99) < 8, "\(idle)")

            let framing = try await Self.attack(server, "framing")
            let expected = ["cl_and_te": 400, "two_cl": 400, "big_header": 431, "many_headers": 431]
            for (name, status) in expected {
                let answer = try #require(framing[name] as? [String: Any], "\(framing)")
                #expect(answer["status"] as? Int == status, "\(name): \(answer)")
                #expect(answer["closed"] as? Bool == true, "\(name): \(answer)")
            }
            // The server still serves.
            #expect(try await curl("\(server.baseURL)/v1/models", []).status == 200)
        }
    }

    @Test("Realtime: a client that sends 200,000 refused messages and reads nothing is cut off with the server's memory bounded; a message over 16 MB closes with 1009")
    func realtimeBackpressure() async throws {
        try await Self.serve { server in
            let flood = try await Self.attack(server, "realtime-flood", ["200000", String(server.process.processIdentifier)])
            #expect((flood["status"] as? String)?.contains("101") == true, "\(flood)")
            let before = try #require(flood["rss_before_kb"] as? Int), after = try #require(flood["rss_after_kb"] as? Int)
            #expect(after - before < 64 * 1024, "the server grew from \(before) to \(after) kB")
            // Its messages are all refused (unknown events): the session ends after 64 of them, saying why.
            #expect(flood["close_code"] as? Int == 1008 && flood["last_error"] as? String == "too_many_errors", "\(flood)")
            let oversize = try await Self.attack(server, "realtime-oversize", [String(17 << 20)])
            #expect(oversize["close_code"] as? Int == 1009, "\(oversize)")
            #expect(try await curl("\(server.baseURL)/health", [], key: nil).status == 200)
        }
    }

    @Test("without a key, another origin's page and a rebound host name are refused (HTTP 403, no WebSocket); this machine's pages and IP addresses are served")
    func originPolicy() async throws {
        try await Self.serve(apiKey: nil) { server in
            let models = "\(server.baseURL)/v1/models"
            #expect(try await curl(models, [], key: nil).status == 200)
            #expect(try await curl(models, ["-H", "Origin: http://localhost:3000"], key: nil).status == 200)
            let foreign = try await curl(models, ["-H", "Origin: https://evil.example"], key: nil)
            #expect(foreign.status == 403 && foreign.error?["code"] as? String == "origin_not_allowed", "\(foreign.body)")
            #expect(try await curl(models, ["-H", "Host: evil.example"], key: nil).status == 403)
            let socket = try await Self.attack(server, "origin", ["https://evil.example", "127.0.0.1:\(server.port)"], key: "")
            #expect(socket["status"] as? Int != 101, "\(socket)")
            let rebound = try await Self.attack(server, "origin", ["-", "evil.example:\(server.port)"], key: "")
            #expect(rebound["status"] as? Int != 101, "\(rebound)")
            let local = try await Self.attack(server, "origin", ["http://localhost:8080", "localhost:\(server.port)"], key: "")
            #expect(local["status"] as? Int == 101, "\(local)")
        }
        // An allowed origin passes.
        try await Self.serve(["--allow-origin", "https://app.example.com"], apiKey: nil) { server in
            let allowed = try await curl("\(server.baseURL)/v1/models", ["-H", "Origin: https://app.example.com"], key: nil)
            #expect(allowed.status == 200, "\(allowed.body)")
        }
    }

    @Test("SIGTERM with slow clients connected and a request in flight: /health says 503 while it finishes, then the server exits")
    func drainWithSlowClients() async throws {
        let clip = try #require(Corpus.item("1221-135766-0002"))
        try await Self.serve(["--request-timeout", "60"]) { server in
            let (port, url) = (server.port, "\(server.baseURL)/v1/audio/transcriptions")
            let slow = Task.detached { () -> [Double?] in
                (try await Self.attack(port: port, "slow-headers", ["5", "50"])["closed_after"] as? [Any] ?? []).map { $0 as? Double }
            }
            let inFlight = Task.detached { try await curl(url, ["-F", "file=@\(clip.wav16kURL.path)"]) }
            let busyBy = Date().addingTimeInterval(10)
            while Date() < busyBy, try await Self.metric(server, "transcriptions_running") != 1 {
                try await Task.sleep(nanoseconds: 20_000_000)
            }
            kill(server.process.processIdentifier, SIGTERM)
            try await Task.sleep(nanoseconds: 100_000_000)
            let health = try await curl("\(server.baseURL)/health", [], key: nil)
            let answer = try await inFlight.value
            #expect(answer.status == 200, "\(answer.body)")
            #expect(health.status == 503 || !server.process.isRunning, "\(health.status) \(health.body)")
            let exitBy = Date().addingTimeInterval(15)
            while server.process.isRunning && Date() < exitBy { try await Task.sleep(nanoseconds: 50_000_000) }
            #expect(!server.process.isRunning, "the server did not exit with slow clients connected")
            let closed = try await slow.value
            #expect(closed.count == 5 && closed.allSatisfy { $0 != nil }, "slow connections left open: \(closed)")
        }
    }
}
