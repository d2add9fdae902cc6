import Foundation
import Testing
import TestSupport

/// Replicas behind a real load balancer (issue 46): Debian's nginx, started by the test on loopback with the
/// repository's own configuration (deploy/nginx/openspeech.conf, its replica addresses and port replaced), in front of
/// two `openspeech serve` replicas, under a load of the official `openai` client (no retries of its own). And the
/// Kubernetes manifests (deploy/kubernetes/) against the Kubernetes schemas.
@Suite(.serialized) struct LoadBalancerTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// nginx running the deploy configuration in front of `replicas`, in a folder of its own; `stop()` ends it.
    final class Balancer {
        let process: Process
        let folder: URL
        let port: Int
        var baseURL: String { "http://127.0.0.1:\(port)" }

        init(replicas: [RunningServer]) async throws {
            folder = try makeTemporaryDirectory("openspeech-nginx")
            // nginx's workers drop root for `nobody`: they must be able to write their temporary files here.
            chmod(folder.path, 0o777)
            var site = try String(contentsOf: LoadBalancerTests.repository.appendingPathComponent("deploy/nginx/openspeech.conf"),
                                  encoding: .utf8)
            let servers = site.split(separator: "\n", omittingEmptySubsequences: false)
                .filter { $0.trimmingCharacters(in: .whitespaces).hasPrefix("server 127.0.0.1:") }
            #expect(servers.count == 2, "the configuration's replica lines: \(servers)")
            for (line, replica) in zip(servers, replicas) {
                site = site.replacingOccurrences(of: line, with: line.replacingOccurrences(
                    of: #"127\.0\.0\.1:\d+"#, with: "127.0.0.1:\(replica.port)", options: .regularExpression))
            }
            port = try Self.freePort()
            site = site.replacingOccurrences(of: "listen 8000;", with: "listen 127.0.0.1:\(port);")
            try site.write(to: folder.appendingPathComponent("openspeech.conf"), atomically: true, encoding: .utf8)
            let main = """
                daemon off;
                pid \(folder.path)/nginx.pid;
                error_log \(folder.path)/error.log warn;
                events {}
                http {
                    access_log off;
                    client_body_temp_path \(folder.path)/body;
                    proxy_temp_path \(folder.path)/proxy;
                    fastcgi_temp_path \(folder.path)/fastcgi;
                    uwsgi_temp_path \(folder.path)/uwsgi;
                    scgi_temp_path \(folder.path)/scgi;
                    include \(folder.path)/openspeech.conf;
                }
                """
            try main.write(to: folder.appendingPathComponent("nginx.conf"), atomically: true, encoding: .utf8)
            process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/sbin/nginx")
            process.arguments = ["-c", folder.appendingPathComponent("nginx.conf").path, "-p", folder.path]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = try FileHandle(forWritingTo: {
                let log = folder.appendingPathComponent("stderr.log")
                FileManager.default.createFile(atPath: log.path, contents: nil)
                return log
            }())
            try process.run()
            let deadline = Date().addingTimeInterval(20)
            while Date() < deadline {
                if try await curl("\(baseURL)/health", [], key: nil).status == 200 { return }
                guard process.isRunning else { break }
                try await Task.sleep(nanoseconds: 50_000_000)
            }
            throw StartError(log: (try? String(contentsOf: folder.appendingPathComponent("stderr.log"), encoding: .utf8)) ?? "")
        }

        func stop() {
            if process.isRunning { process.terminate() }  // SIGTERM: nginx's fast shutdown
            process.waitUntilExit()
            try? FileManager.default.removeItem(at: folder)
        }

        /// A loopback port nothing listens on now.
        static func freePort() throws -> Int {
            let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(socket) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = 0
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0
                }
            }
            guard bound else { throw StartError(log: "no free port: \(String(cString: strerror(errno)))") }
            return Int(UInt16(bigEndian: address.sin_port))
        }

        struct StartError: Error, CustomStringConvertible {
            let log: String
            var description: String { "nginx did not start: \(log)" }
        }
    }

    /// One request of the load: its status, text, and start and end in seconds from the load's start.
    struct Request {
        let status: Int
        let text: String
        let start: Double
        let end: Double
        let error: String
    }

    /// What a load through the balancer saw: each request, the signal's time (seconds from the load's start), and how
    /// the signalled replica ended (its exit status, or the signal that ended it, and its log).
    struct LoadOutcome {
        let requests: [Request]
        let signalled: Double
        let exit: (status: Int32, reason: Process.TerminationReason)
        let log: String
    }

    /// Two replicas and nginx in front of them; a load of `concurrency` clients through nginx for `seconds`, `signal`
    /// sent to the first replica `at` seconds in. Everything is stopped before it returns.
    static func load(signal: Int32, at: Double, seconds: Double = 10, concurrency: Int = 4) async throws -> LoadOutcome {
        let replicas = [try await RunningServer.start(), try await RunningServer.start()]
        let balancer: Balancer
        do {
            balancer = try await Balancer(replicas: replicas)
        } catch {
            for replica in replicas { _ = try? await replica.stop() }
            throw error
        }
        let clip = try #require(Corpus.item("jfk")).wav16kURL.path
        let result = try? await openAIClient(
            baseURL: balancer.baseURL, "during",
            [clip, "\(seconds)", "\(concurrency)", "\(replicas[0].process.processIdentifier)", "\(signal)", "\(at)"])
        // The signalled replica ends on its own (drained, or killed); then the rest is stopped.
        let signalled = replicas[0]
        let deadline = Date().addingTimeInterval(60)
        while signalled.process.isRunning && Date() < deadline { try await Task.sleep(nanoseconds: 20_000_000) }
        let exit = signalled.process.isRunning ? (Int32(-1), Process.TerminationReason.exit)
            : (signalled.process.terminationStatus, signalled.process.terminationReason)
        let log = signalled.output
        balancer.stop()
        #expect(try await replicas[1].stop() == 0)
        _ = try await signalled.stop()
        let object = try #require(result as? [String: Any], "the load's client failed")
        let requests = (object["requests"] as? [[String: Any]] ?? []).map {
            Request(status: $0["status"] as? Int ?? -2, text: $0["text"] as? String ?? "", start: $0["start"] as? Double ?? 0,
                    end: $0["end"] as? Double ?? 0, error: $0["error"] as? String ?? "")
        }
        return LoadOutcome(requests: requests, signalled: object["signalled"] as? Double ?? -1, exit: exit, log: log)
    }

    @Test("a replica stopped with SIGTERM under load through nginx: it drains and exits 0, every request is answered 200 with the words")
    func drainBehindTheBalancer() async throws {
        let outcome = try await Self.load(signal: SIGTERM, at: 3)
        #expect(outcome.exit.status == 0 && outcome.exit.reason == .exit, "\(outcome.log)")
        #expect(outcome.log.contains("draining"), "\(outcome.log)")
        let requests = outcome.requests
        #expect(requests.filter { $0.start > outcome.signalled }.count >= 4, "too little load after the signal: \(requests.count)")
        let failed = requests.filter { $0.status != 200 }.map { ($0.status, $0.start, $0.error) }
        #expect(failed.isEmpty, "\(failed) of \(requests.count); SIGTERM at \(outcome.signalled)")
        #expect(requests.allSatisfy { $0.status != 200 || $0.text.contains("ask not what your country") })
    }

    @Test("a replica killed with SIGKILL under load through nginx: only requests in flight at the kill may fail, every later one is answered 200")
    func killBehindTheBalancer() async throws {
        let outcome = try await Self.load(signal: SIGKILL, at: 3)
        #expect(outcome.exit.reason == .uncaughtSignal && outcome.exit.status == SIGKILL)
        let requests = outcome.requests, signalled = outcome.signalled
        #expect(requests.filter { $0.start > signalled }.count >= 4, "too little load after the kill: \(requests.count)")
        let failed = requests.filter { $0.status != 200 }
        let outside = failed.map { ($0.status, $0.start, $0.end, $0.error) }
        #expect(failed.allSatisfy { $0.start <= signalled && $0.end >= signalled },
                "failures outside the kill: \(outside); SIGKILL at \(signalled)")
        #expect(failed.count <= 4, "more failures than requests in flight: \(failed.count)")
        #expect(requests.allSatisfy { $0.status != 200 || $0.text.contains("ask not what your country") })
    }

    @Test("the Kubernetes manifests pass the Kubernetes schemas (strict); a manifest with a misspelt field does not")
    func manifestsValidate() async throws {
        let manifests = try FileManager.default.contentsOfDirectory(
            at: Self.repository.appendingPathComponent("deploy/kubernetes"), includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "yaml" }.map(\.path).sorted()
        #expect(manifests.count >= 4)
        let valid = try await runCommand("python3", ["-m", "kubernetes_validate", "--strict"] + manifests, check: false)
        #expect(valid.status == 0, "\(valid.stdoutText)\(valid.stderr)")
        for name in ["Deployment", "Job", "Service", "HorizontalPodAutoscaler"] {
            #expect(valid.stdoutText.lowercased().contains("\(name.lowercased())/openspeech") || valid.stderr.lowercased()
                .contains("\(name.lowercased())/openspeech"), "\(name) not validated: \(valid.stdoutText)\(valid.stderr)")
        }
        let folder = try makeTemporaryDirectory("openspeech-manifests")
        defer { try? FileManager.default.removeItem(at: folder) }
        let broken = folder.appendingPathComponent("deployment.yaml")
        try String(contentsOfFile: manifests.first { $0.hasSuffix("deployment.yaml") }!, encoding: .utf8)
            .replacingOccurrences(of: "readinessProbe:", with: "readinesProbe:")
            .write(to: broken, atomically: true, encoding: .utf8)
        let invalid = try await runCommand("kubernetes-validate", ["--strict", broken.path], check: false)
        #expect(invalid.status != 0, "\(invalid.stdoutText)\(invalid.stderr)")
    }
}
