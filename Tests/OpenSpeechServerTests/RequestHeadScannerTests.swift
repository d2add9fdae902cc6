@testable import OpenSpeechServer
import Testing

/// The connection guard's scanner: requests followed through their bodies, refusals of ambiguous framing and of heads
/// past the limits, whatever the cut of the bytes into reads.
@Suite struct RequestHeadScannerTests {
    /// Scans `text` in pieces of `size` bytes; returns the refusal, if any, and the scanner.
    static func scan(_ text: String, size: Int) -> (RequestHeadScanner.Refusal?, RequestHeadScanner) {
        var scanner = RequestHeadScanner()
        let bytes = Array(text.utf8)
        for start in stride(from: 0, to: bytes.count, by: size) {
            do {
                try scanner.scan(bytes[start..<min(start + size, bytes.count)])
            } catch {
                return (error, scanner)
            }
        }
        return (nil, scanner)
    }

    static let sizes = [1, 2, 3, 7, 64, 100_000]

    @Test("kept-alive requests with fixed and chunked bodies (extensions, trailers) pass, the next head found after each")
    func keptAliveRequests() {
        let requests = "GET /health HTTP/1.1\r\nHost: a\r\n\r\n"
            + "POST /v1/audio/transcriptions HTTP/1.1\r\nHost: a\r\nContent-Length: 11\r\n\r\nhello world"
            + "POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nX-T: 1\r\n\r\n"
            + "\r\nGET /v1/models HTTP/1.1\r\nHost: a\r\n\r\n"
            + "GET /v1/models HTTP/1.1\r\nHost: a\r\n"
        for size in Self.sizes {
            let (refusal, scanner) = Self.scan(requests, size: size)
            #expect(refusal == nil, "size \(size): \(String(describing: refusal))")
            #expect(scanner.isInsideHead, "the last head is incomplete (size \(size))")
        }
        // A body's bytes are not read as a head: a Content-Length of a body that looks like one.
        let tricky = "POST /x HTTP/1.1\r\nContent-Length: 40\r\n\r\nGET / HTTP/1.1\r\nContent-Length: 1\r\n\r\n\r\n\r\n"
        #expect(Self.scan(tricky, size: 5).0 == nil)
    }

    @Test("ambiguous framing is refused with 400: Content-Length with Transfer-Encoding, two Content-Lengths, a Transfer-Encoding not ending in chunked, a bad length or chunk size")
    func ambiguousFraming() {
        let cases = [
            "POST / HTTP/1.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n",
            "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n",
            "POST / HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n",
            "POST / HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\n",
            "POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n",
            "POST / HTTP/1.1\r\nTransfer-Encoding: chunked, chunked\r\n\r\n",
            "POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n",
            "POST / HTTP/1.1\r\nContent-Length: 1e3\r\n\r\n",
            "POST / HTTP/1.1\r\nContent-Length: 99999999999999999999\r\n\r\n",
            "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
            "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcX",
            // Smuggling behind a first request that passes.
            "GET / HTTP/1.1\r\n\r\nPOST / HTTP/1.1\r\ncontent-length: 1\r\nTRANSFER-ENCODING: chunked\r\n\r\n",
        ]
        for text in cases {
            for size in Self.sizes {
                let (refusal, scanner) = Self.scan(text, size: size)
                #expect(refusal?.status == 400, "\(text.debugDescription) size \(size)")
                #expect(scanner.isDone)
            }
        }
    }

    @Test("a head over 64 KB or with over 200 fields is refused with 431, before the rest arrives")
    func headLimits() {
        let big = "GET / HTTP/1.1\r\nX-Big: " + String(repeating: "b", count: 100_000) + "\r\n\r\n"
        let many = "GET / HTTP/1.1\r\n" + (0..<1_000).map { "X-\($0): 1\r\n" }.joined() + "\r\n"
        for text in [big, many] {
            #expect(Self.scan(text, size: 4096).0?.status == 431)
        }
        let fine = "GET / HTTP/1.1\r\n" + (0..<150).map { "X-\($0): 1\r\n" }.joined() + "\r\n"
        #expect(Self.scan(fine, size: 4096).0 == nil)
    }

    @Test("after an upgrade request the bytes are another protocol's: nothing is scanned")
    func upgrade() {
        let text = "GET /v1/realtime HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n"
            + "\u{81}\u{85}garbage Content-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n"
        let (refusal, scanner) = Self.scan(text, size: 3)
        #expect(refusal == nil)
        #expect(scanner.isDone && !scanner.isInsideHead)
    }
}
