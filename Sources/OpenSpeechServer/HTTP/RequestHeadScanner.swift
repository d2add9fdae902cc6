/// Follows the requests of one HTTP/1.1 connection through its bytes as they arrive, ahead of the server's parser, and
/// refuses what must not reach it: ambiguous framing (Content-Length with Transfer-Encoding, two Content-Lengths, a
/// Transfer-Encoding that does not end in chunked, a malformed length), and heads too large or with too many fields.
/// It follows each body (Content-Length, or chunked with its trailers) to find the next head on a kept-alive
/// connection, and stops at a request that upgrades the connection (a WebSocket speaks another protocol after it).
/// Nothing is copied but the current line, whose length is bounded.
package struct RequestHeadScanner: Sendable {
    /// The most bytes a request head may have (request line and fields).
    static let maxHeadBytes = 64 * 1024
    /// The most header fields a request may have.
    static let maxFields = 200
    /// The longest chunk-size line (with extensions) or trailer line.
    private static let maxChunkLineBytes = 4 * 1024

    /// Why a request was refused: the HTTP status to answer, and a sentence.
    package struct Refusal: Error, Equatable, Sendable {
        package let status: Int
        package let message: String
    }

    private enum State: Sendable, Equatable {
        /// Reading a head: its bytes so far, its fields so far.
        case head(bytes: Int, fields: Int)
        case fixedBody(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        /// The CRLF after a chunk's data: how many of its bytes were seen.
        case chunkDataEnd(seen: Int)
        case trailers
        /// After an upgrade, or a refusal: nothing further is scanned.
        case done
    }

    private var state = State.head(bytes: 0, fields: 0)
    /// The current line (head field or chunk line), without its CRLF.
    private var line: [UInt8] = []
    /// The head being read: Content-Length values, Transfer-Encoding values, whether it upgrades.
    private var contentLengths: [Substring] = []
    private var transferEncodings: [Substring] = []
    private var upgrades = false

    package init() {}

    /// Whether part of a request head has arrived and the rest has not (the time a client takes here is bounded).
    package var isInsideHead: Bool {
        if case .head(let bytes, _) = state { return bytes > 0 }
        return false
    }

    /// Whether the connection has left HTTP/1.1 (upgraded) or was refused: later bytes are not scanned.
    package var isDone: Bool { state == .done }

    /// Takes the next bytes of the connection. Throws the refusal of the first request that must not be served.
    package mutating func scan(_ bytes: some Collection<UInt8>) throws(Refusal) {
        var index = bytes.startIndex
        while index != bytes.endIndex {
            switch state {
            case .done:
                return
            case .fixedBody(let remaining):
                let available = bytes.distance(from: index, to: bytes.endIndex)
                let taken = min(available, remaining)
                index = bytes.index(index, offsetBy: taken)
                state = remaining == taken ? .head(bytes: 0, fields: 0) : .fixedBody(remaining: remaining - taken)
            case .chunkData(let remaining):
                let available = bytes.distance(from: index, to: bytes.endIndex)
                let taken = min(available, remaining)
                index = bytes.index(index, offsetBy: taken)
                state = remaining == taken ? .chunkDataEnd(seen: 0) : .chunkData(remaining: remaining - taken)
            case .chunkDataEnd(let seen):
                let byte = bytes[index]
                index = bytes.index(after: index)
                if seen == 0 && byte == 13 {
                    state = .chunkDataEnd(seen: 1)
                } else if byte == 10 {
                    state = .chunkSize
                } else {
                    throw refuse(400, "A chunk of the request's body does not end where its size says.")
                }
            case .head(let count, let fields):
                let byte = bytes[index]
                index = bytes.index(after: index)
                guard count < Self.maxHeadBytes else {
                    throw refuse(431, "The request's head is larger than \(Self.maxHeadBytes / 1024) KB.")
                }
                state = .head(bytes: count + 1, fields: fields)
                if byte == 10 {
                    try endHeadLine(fields: fields)
                } else if byte != 13 {
                    line.append(byte)
                }
            case .chunkSize, .trailers:
                let byte = bytes[index]
                index = bytes.index(after: index)
                if byte == 10 {
                    try endChunkLine()
                } else if byte != 13 {
                    guard line.count < Self.maxChunkLineBytes else {
                        throw refuse(400, "A chunk-size or trailer line of the request is too long.")
                    }
                    line.append(byte)
                }
            }
        }
    }

    private mutating func endHeadLine(fields: Int) throws(Refusal) {
        defer { line.removeAll(keepingCapacity: true) }
        guard case .head(let count, _) = state else { return }
        if line.isEmpty {
            // Empty lines before a request line are ignored (RFC 9112 §2.2); after the fields, the head ends.
            if fields == 0 && count <= 2 {
                state = .head(bytes: 0, fields: 0)
                return
            }
            try endHead()
            return
        }
        // The request line counts as the first "field" so that an empty line after it ends the head.
        guard fields <= Self.maxFields else {
            throw refuse(431, "The request has more than \(Self.maxFields) header fields.")
        }
        state = .head(bytes: count, fields: fields + 1)
        guard fields > 0, let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return }
        let name = String(decoding: line[..<colon], as: UTF8.self).lowercased()
        let value = Substring(String(decoding: line[(colon + 1)...], as: UTF8.self)).trimmingSpaces
        switch name {
        case "content-length": contentLengths.append(value)
        case "transfer-encoding": transferEncodings.append(value)
        case "upgrade": upgrades = true
        default: break
        }
    }

    /// The head is complete: decides how its body is framed.
    private mutating func endHead() throws(Refusal) {
        defer {
            contentLengths.removeAll()
            transferEncodings.removeAll()
            upgrades = false
        }
        if !transferEncodings.isEmpty {
            guard contentLengths.isEmpty else {
                throw refuse(400, "The request has both Content-Length and Transfer-Encoding: its length is ambiguous.")
            }
            let codings = transferEncodings.flatMap { $0.split(separator: ",") }.map { $0.trimmingSpaces.lowercased() }
            guard codings.last == "chunked", codings.filter({ $0 == "chunked" }).count == 1 else {
                throw refuse(400, "The request's Transfer-Encoding must end in chunked, once.")
            }
            state = .chunkSize
        } else if !contentLengths.isEmpty {
            guard contentLengths.count == 1 else {
                throw refuse(400, "The request has more than one Content-Length: its length is ambiguous.")
            }
            let text = contentLengths[0]
            guard !text.isEmpty, text.count <= 18, text.allSatisfy({ $0.isASCII && $0.isNumber }), let length = Int(text)
            else {
                throw refuse(400, "The request's Content-Length is not a number of bytes.")
            }
            state = length > 0 ? .fixedBody(remaining: length) : .head(bytes: 0, fields: 0)
        } else {
            state = .head(bytes: 0, fields: 0)
        }
        if upgrades { state = .done }
    }

    private mutating func endChunkLine() throws(Refusal) {
        defer { line.removeAll(keepingCapacity: true) }
        if state == .trailers {
            if line.isEmpty { state = .head(bytes: 0, fields: 0) }
            return
        }
        // chunk-size [; extensions]
        let digits = line.prefix { $0 != UInt8(ascii: ";") }.filter { $0 != UInt8(ascii: " ") && $0 != 9 }
        guard !digits.isEmpty, digits.count <= 15,
              let size = Int(String(decoding: digits, as: UTF8.self), radix: 16), size >= 0 else {
            throw refuse(400, "A chunk size of the request's body is not a hexadecimal number.")
        }
        state = size == 0 ? .trailers : .chunkData(remaining: size)
    }

    private mutating func refuse(_ status: Int, _ message: String) -> Refusal {
        state = .done
        return Refusal(status: status, message: message)
    }
}

private extension Substring {
    var trimmingSpaces: Substring {
        let start = firstIndex { $0 != " " && $0 != "\t" } ?? endIndex
        let end = lastIndex { $0 != " " && $0 != "\t" }.map { index(after: $0) } ?? start
        return self[start..<Swift.max(start, end)]
    }
}
