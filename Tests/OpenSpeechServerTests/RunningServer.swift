import Foundation
import Testing
import TestSupport

/// `openspeech serve` started as the built executable on a free loopback port, with its own temporary folder (to
/// check that uploads leave nothing behind) and the tests' model home; stopped with SIGTERM by `stop()`.
final class RunningServer {
    static let apiKey = "test-key-0123456789"

    let process: Process
    let port: Int
    let log: URL
    /// The server's `TMPDIR`.
    let temporary: URL
    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Starts the server with `arguments` after `serve --host 127.0.0.1 --port 0 --model whisper-tiny.en`
    /// (`model` nil: no `--model`). `home`: the model home (default: the tests' shared one).
    static func start(_ arguments: [String] = [], apiKey: String? = RunningServer.apiKey,
                      home: URL = TestModels.home, model: String? = "whisper-tiny.en") async throws -> RunningServer {
        _ = try await TestModels.directory(for: "whisper-tiny.en")
        _ = try await TestModels.directory(for: "silero-vad")
        let temporary = try makeTemporaryDirectory("openspeech-server-tmp")
        let log = temporary.deletingLastPathComponent().appendingPathComponent("openspeech-server-\(UUID()).log")
        var environment = ["OPENSPEECH_HOME": home.path, "TMPDIR": temporary.path]
        environment["OPENSPEECH_API_KEY"] = apiKey ?? ""
        let process = try OpenSpeechExecutable.start(
            ["serve", "--host", "127.0.0.1", "--port", "0"] + (model.map { ["--model", $0] } ?? [])
                + ["--beam-size", "1", "--no-download"] + arguments,
            environment: environment, output: log)
        let deadline = Date().addingTimeInterval(120)
        while Date() < deadline {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            if let range = text.range(of: "listening on http://127.0.0.1:") {
                let digits = text[range.upperBound...].prefix { $0.isNumber }
                if let port = Int(digits), port > 0 {
                    return RunningServer(process: process, port: port, log: log, temporary: temporary)
                }
            }
            if !process.isRunning { break }
            try await Task.sleep(nanoseconds: 50_000_000)
        }
        process.terminate()
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        throw StartError(output: text)
    }

    /// Starts a server as `start` does, runs `body` with it (printing the server's log if `body` throws), then stops it
    /// and expects a clean exit.
    static func with(_ arguments: [String] = [], apiKey: String? = RunningServer.apiKey,
                     _ body: (RunningServer) async throws -> Void) async throws {
        let server = try await start(arguments, apiKey: apiKey)
        do {
            try await body(server)
        } catch {
            print(server.output)
            try await server.stop()
            throw error
        }
        #expect(server.leftovers().isEmpty, "files left in the server's temporary folder: \(server.leftovers())")
        #expect(try await server.stop() == 0)
    }

    private init(process: Process, port: Int, log: URL, temporary: URL) {
        self.process = process
        self.port = port
        self.log = log
        self.temporary = temporary
    }

    var output: String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }

    /// Sends SIGTERM and waits for the process to end; returns its exit status. Removes its folder and log.
    @discardableResult
    func stop() async throws -> Int32 {
        if process.isRunning { process.terminate() }
        let deadline = Date().addingTimeInterval(60)
        while process.isRunning && Date() < deadline { try await Task.sleep(nanoseconds: 20_000_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: temporary)
        try? FileManager.default.removeItem(at: log)
        return process.terminationStatus
    }

    /// Files and folders left in the server's temporary folder.
    func leftovers() -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? []
    }

    /// The server's resident memory in kB (from /proc).
    func residentKilobytes() -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    struct StartError: Error, CustomStringConvertible {
        let output: String
        var description: String { "openspeech serve did not start listening: \(output)" }
    }
}

/// An HTTP exchange through curl: status, headers (lower-cased names) and body.
struct CurlResponse {
    let status: Int
    let headers: [String: String]
    let body: String

    var json: [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any]
    }

    /// The `error` object of an OpenAI-shaped error body.
    var error: [String: Any]? { json?["error"] as? [String: Any] }

    /// Whether the body is OpenAI's error shape: `error` with message, type, param and code keys.
    var isOpenAIError: Bool {
        guard let error, error["message"] is String, error["type"] is String else { return false }
        return error.keys.contains("param") && error.keys.contains("code")
    }
}

/// Runs curl against `url` with extra arguments (`-F` fields, `-H` headers...).
func curl(_ url: String, _ arguments: [String], key: String? = RunningServer.apiKey) async throws -> CurlResponse {
    let folder = try makeTemporaryDirectory("openspeech-curl")
    defer { try? FileManager.default.removeItem(at: folder) }
    let body = folder.appendingPathComponent("body"), headers = folder.appendingPathComponent("headers")
    let auth = key.map { ["-H", "Authorization: Bearer \($0)"] } ?? []
    let result = try await runCommand("curl", ["-sS", "-o", body.path, "-D", headers.path, "-w", "%{http_code}"]
                                + auth + arguments + [url], check: false)
    var fields: [String: String] = [:]
    for line in ((try? String(contentsOf: headers, encoding: .utf8)) ?? "").split(separator: "\r\n") {
        let pair = line.split(separator: ":", maxSplits: 1)
        if pair.count == 2 { fields[pair[0].lowercased()] = pair[1].trimmingCharacters(in: .whitespaces) }
    }
    return CurlResponse(status: Int(result.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1,
                        headers: fields, body: (try? String(contentsOf: body, encoding: .utf8)) ?? "")
}

/// Runs the `openai` package's calls (Clients/openai_calls.py) and returns their JSON output.
func openAIClient(_ server: RunningServer, _ mode: String, _ arguments: [String], key: String = RunningServer.apiKey) async throws -> Any {
    try await openAIClient(baseURL: server.baseURL, mode, arguments, key: key)
}

/// The same against any server's address (a load balancer's).
func openAIClient(baseURL: String, _ mode: String, _ arguments: [String], key: String = RunningServer.apiKey) async throws -> Any {
    let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Clients/openai_calls.py")
    let result = try await runCommand("python3", [script.path, "\(baseURL)/v1", key, mode] + arguments)
    return try JSONSerialization.jsonObject(with: result.stdout)
}

/// The corpus-style word error rate of `text` against `reference`.
func wordErrorRate(_ text: String, _ reference: String) -> Double {
    WordErrorRate.score(reference: reference, hypothesis: text, language: "en").rate
}
