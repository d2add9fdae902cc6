import Crypto
import Foundation

/// The id git gives a file's content, which the Hub lists for files not stored with LFS (the small ones): the
/// SHA-1 of `"blob {size}\0"` followed by the content, in lowercase hexadecimal.
enum GitBlobID {
    /// The blob id of the file at `url` (read through links; only a regular file is read).
    static func of(_ url: URL) throws -> String {
        let handle = try RegularFile.openForReading(url)
        defer { try? handle.close() }
        let size = try handle.seekToEnd()
        try handle.seek(toOffset: 0)
        var hasher = Insecure.SHA1()
        hasher.update(data: Data("blob \(size)\0".utf8))
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            hasher.update(data: chunk)
        }
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }
}
