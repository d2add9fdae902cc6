import Crypto
import Foundation

/// Writes a model file through the file layer while computing its SHA-256 and size, so every byte installed is
/// the byte checked.
final class HashingSink {
    private let sink: any FileSink
    private var hasher = SHA256()
    private(set) var byteCount: Int64 = 0
    private let onBytes: (Int64) -> Void
    /// The SHA-256, once `finish()` has run.
    private(set) var digest: String?

    init(_ sink: any FileSink, onBytes: @escaping (Int64) -> Void = { _ in }) {
        self.sink = sink
        self.onBytes = onBytes
    }

    /// Feeds bytes already on disk (a resumed download) to the hash without writing them.
    func absorbExisting(_ data: Data) {
        hasher.update(data: data)
        byteCount += Int64(data.count)
    }

    func write(_ data: Data) throws {
        try data.withUnsafeBytes { try write($0) }
    }

    func write(_ buffer: UnsafeRawBufferPointer) throws {
        try sink.write(buffer)
        hasher.update(bufferPointer: buffer)
        byteCount += Int64(buffer.count)
        onBytes(Int64(buffer.count))
    }

    /// Closes the file and returns its lowercase hex SHA-256.
    func finish() throws -> String {
        if let digest { return digest }
        try sink.close()
        let result = hasher.finalize().map { String(format: "%02x", $0) }.joined()
        digest = result
        return result
    }
}

/// The size and SHA-256 of a file on disk, both of the bytes read (through links; only a regular file is read).
struct FileDigest: Sendable, Equatable {
    let size: Int64
    let sha256: String
}

extension FileDigest {
    init(of url: URL) throws {
        let handle = try RegularFile.openForReading(url)
        defer { try? handle.close() }
        var hasher = SHA256()
        var size: Int64 = 0
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            hasher.update(data: chunk)
            size += Int64(chunk.count)
        }
        self.size = size
        sha256 = hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }
}
