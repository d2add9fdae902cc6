import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A tiny HTTP/1.1 file server on 127.0.0.1 (ephemeral port) for install tests: serves files with `Range`
/// support, and can cut a response mid-file, answer 404, or send slowly. A `respond` function may answer some
/// requests itself (an API's JSON, a redirect, a refusal with headers).
final class LoopbackHTTPServer: Sendable {
    struct Request: Sendable, Equatable {
        /// The request target: path and query.
        var path: String
        var range: String?
        /// The `Authorization` header, if sent.
        var authorization: String? = nil
    }

    /// A whole response sent by `respond`, never cut or slowed.
    struct Response: Sendable {
        var status: Int
        var headers: [String: String] = [:]
        var body = Data()
    }

    struct Behaviour: Sendable {
        /// The first response for each path stops after this many body bytes (the connection is closed).
        var cutFirstResponseAfter: Int?
        /// Body bytes per 10 ms (nil: as fast as possible).
        var bytesPer10ms: Int?
        /// Ignore `Range` headers (always send the whole file with 200).
        var ignoreRange = false
        /// Once this many body bytes have been sent in all, every response holds still (the connection stays
        /// open) until the behaviour is changed or the server stops: a client that cannot finish on its own.
        var stallAfterTotalBytes: Int?
    }

    private struct State {
        var requests: [Request] = []
        var bodyBytesSent = 0
        var cutPaths: Set<String> = []
        var behaviour = Behaviour()
        var stopped = false
    }

    private let files: [String: Data]
    private let respond: (@Sendable (Request) -> Response?)?
    private let state = Mutex(State())
    private let listener: Int32
    let port: UInt16

    /// Starts serving `files` (URL path → contents); `respond` answers first when it returns a response.
    init(files: [String: Data], behaviour: Behaviour = Behaviour(),
         respond: (@Sendable (Request) -> Response?)? = nil) throws {
        self.files = files
        self.respond = respond
        state.withLock { $0.behaviour = behaviour }
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 16) == 0 else {
            close(fd)
            throw POSIXError(.init(rawValue: errno) ?? .EIO)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = UInt16(bigEndian: address.sin_port)
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    deinit { stop() }

    /// The address of `path`; `host` may be `localhost` to reach this server under another host name.
    func url(_ path: String, host: String = "127.0.0.1") -> String { "http://\(host):\(port)\(path)" }

    var requests: [Request] { state.withLock { $0.requests } }
    var bodyBytesSent: Int { state.withLock { $0.bodyBytesSent } }

    func setBehaviour(_ behaviour: Behaviour) { state.withLock { $0.behaviour = behaviour } }

    func stop() {
        let wasStopped = state.withLock { state in
            defer { state.stopped = true }
            return state.stopped
        }
        guard !wasStopped else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return
            }
            let thread = Thread { [self] in
                handle(client)
                close(client)
            }
            thread.start()
        }
    }

    private func handle(_ fd: Int32) {
        var buffer = [UInt8](repeating: 0, count: 8192)
        var head = Data()
        while !head.contains(Data("\r\n\r\n".utf8)) {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { return }
            head.append(contentsOf: buffer[0..<count])
        }
        let lines = String(decoding: head, as: UTF8.self).components(separatedBy: "\r\n")
        let parts = lines[0].split(separator: " ")
        guard parts.count >= 2 else { return }
        let path = String(parts[1])
        func header(_ name: String) -> String? {
            lines.dropFirst().first { $0.lowercased().hasPrefix(name + ":") }
                .map { String($0.dropFirst(name.count + 1)).trimmingCharacters(in: .whitespaces) }
        }
        let request = Request(path: path, range: header("range"), authorization: header("authorization"))
        let rangeHeader = request.range
        if let response = respond?(request) {
            state.withLock { $0.requests.append(request) }
            let reason = [200: "OK", 302: "Found", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found"][response.status] ?? "Status"
            var head = "HTTP/1.1 \(response.status) \(reason)\r\nContent-Length: \(response.body.count)\r\nConnection: close\r\n"
            for (name, value) in response.headers { head += "\(name): \(value)\r\n" }
            sendAll(fd, Data((head + "\r\n").utf8) + response.body)
            return
        }
        let (behaviour, cutNow) = state.withLock { state -> (Behaviour, Bool) in
            state.requests.append(request)
            let cut = state.behaviour.cutFirstResponseAfter != nil && !state.cutPaths.contains(path)
            if cut { state.cutPaths.insert(path) }
            return (state.behaviour, cut)
        }
        guard let file = files[path] else {
            sendAll(fd, Data("HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\nConnection: close\r\n\r\nnot found".utf8))
            return
        }
        var start = 0
        var status = "200 OK"
        var extra = ""
        if let rangeHeader, !behaviour.ignoreRange, rangeHeader.hasPrefix("bytes="),
           let from = Int(rangeHeader.dropFirst("bytes=".count).split(separator: "-").first ?? "") {
            if from >= file.count {
                sendAll(fd, Data("HTTP/1.1 416 Range Not Satisfiable\r\nContent-Range: bytes */\(file.count)\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8))
                return
            }
            start = from
            status = "206 Partial Content"
            extra = "Content-Range: bytes \(from)-\(file.count - 1)/\(file.count)\r\n"
        }
        let body = file[file.startIndex + start ..< file.endIndex]
        let header = "HTTP/1.1 \(status)\r\nContent-Type: application/octet-stream\r\nContent-Length: \(body.count)\r\n\(extra)Accept-Ranges: bytes\r\nConnection: close\r\n\r\n"
        guard sendAll(fd, Data(header.utf8)) else { return }
        var limit = body.count
        if cutNow, let cut = behaviour.cutFirstResponseAfter { limit = min(limit, cut) }
        let chunk = behaviour.bytesPer10ms ?? 64 * 1024
        var offset = 0
        while offset < limit {
            if state.withLock({ $0.stopped }) { return }
            if isStalled() {
                usleep(10_000)
                continue
            }
            let end = min(offset + chunk, limit)
            guard sendAll(fd, body[body.startIndex + offset ..< body.startIndex + end]) else { return }
            state.withLock { $0.bodyBytesSent += end - offset }
            offset = end
            if behaviour.bytesPer10ms != nil { usleep(10_000) }
        }
    }

    private func isStalled() -> Bool {
        state.withLock { state in
            state.behaviour.stallAfterTotalBytes.map { state.bodyBytesSent >= $0 } ?? false
        }
    }

    @discardableResult
    private func sendAll(_ fd: Int32, _ data: Data) -> Bool {
        data.withUnsafeBytes { raw in
            var sent = 0
            while sent < raw.count {
                let result = send(fd, raw.baseAddress! + sent, raw.count - sent, Int32(MSG_NOSIGNAL))
                if result <= 0 { return false }
                sent += result
            }
            return true
        }
    }
}
