import Foundation
import Hummingbird
import NIOCore
@testable import OpenSpeechServer
import Testing

/// Upload bodies that crashed MultipartKit's parser (found by fuzzing) are refused with a 400 before it sees them;
/// well-formed bodies, non-ASCII file names in header values and non-ASCII audio bytes pass.
@Suite struct MultipartGuardTests {
    static let boundary = "fuzzboundary"

    static func body(_ headerLines: [String], content: [UInt8] = Array("whisper-1".utf8)) -> [UInt8] {
        Array("--\(boundary)\r\n".utf8) + Array(headerLines.map { $0 + "\r\n" }.joined().utf8) + Array("\r\n".utf8)
            + content + Array("\r\n--\(boundary)--\r\n".utf8)
    }

    /// Reads `bytes` as the server does, in chunks of `chunkSize` (parsers keep state across chunks).
    static func read(_ bytes: [UInt8], chunkSize: Int) async throws -> MultipartUpload {
        let chunks = stride(from: 0, to: bytes.count, by: chunkSize).map {
            ByteBuffer(bytes: bytes[$0..<min($0 + chunkSize, bytes.count)])
        }
        let stream = AsyncStream<ByteBuffer> { continuation in
            for chunk in chunks { continuation.yield(chunk) }
            continuation.finish()
        }
        let upload = try await MultipartUpload.read(RequestBody(asyncSequence: stream), boundary: boundary,
                                                    maxBytes: 1 << 20)
        upload.folder.release()
        return upload
    }

    @Test("the guard follows the framing: a non-ASCII byte in a header name is caught, elsewhere it is not")
    func guardPolicy() {
        var plain = MultipartHeaderGuard(boundary: Self.boundary)
        let accepted = plain.accepts(Self.body(["Content-Disposition: form-data; name=\"file\"; filename=\"café.wav\""],
                                               content: [0xFF, 0xA4, 0x0D, 0x80, 0x0A]))
        #expect(accepted)
        for cut in 1..<20 {
            var split = MultipartHeaderGuard(boundary: Self.boundary)
            let bytes = Self.body(["Content-Disposition: form-data; name=\"model\"", "X-\u{E9}: 1"])
            let first = split.accepts(bytes.prefix(cut)), second = split.accepts(bytes.dropFirst(cut))
            #expect(first && !second || !first, "cut at \(cut)")
            #expect(!(first && second), "cut at \(cut)")
        }
        // After the first part, in the second part's headers.
        var second = MultipartHeaderGuard(boundary: Self.boundary)
        let twoParts = Array("--\(Self.boundary)\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nx\r\n--\(Self.boundary)\r\n".utf8)
            + [0xA4] + Array(": y\r\n\r\nz\r\n--\(Self.boundary)--\r\n".utf8)
        let acceptedSecond = second.accepts(twoParts)
        #expect(!acceptedSecond)
    }

    @Test("the fuzzer's finding and a hand-made one: 400 invalid_multipart, in any chunking, no crash")
    func findingsAreRefused() async throws {
        let finding = try Array(Data(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../bench/Fuzz/Findings/multipartkit-header-name-non-ascii.bin")))
        let handMade = Self.body(["Content-Disposition: form-data; name=\"model\"", "\u{A4}: x"])
        for bytes in [finding, handMade] {
            for chunkSize in [1, 7, 64, bytes.count] {
                do {
                    _ = try await Self.read(bytes, chunkSize: chunkSize)
                    Issue.record("a body that traps MultipartKit was read (chunks of \(chunkSize))")
                } catch let error as APIError {
                    #expect(error.code == "invalid_multipart", "\(error)")
                }
            }
        }
    }

    @Test("well-formed bodies still read, whatever the chunking")
    func wellFormed() async throws {
        let bytes = Self.body(["Content-Disposition: form-data; name=\"model\""])
        for chunkSize in [1, 5, bytes.count] {
            let upload = try await Self.read(bytes, chunkSize: chunkSize)
            #expect(upload.fields["model"] == ["whisper-1"])
        }
    }
}
