import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The bytes an archive is read from: a file read where it is needed (`pread`, so entries are read without holding
/// the archive in memory), or bytes in memory. Every read is of bytes inside `size`.
final class ByteSource {
    private enum Storage {
        case file(Int32)
        case memory(Data)
    }

    private let storage: Storage
    let size: Int

    init(url: URL) throws {
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw ZipArchiveError.unreadable(reason: String(cString: strerror(errno))) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            close(descriptor)
            throw ZipArchiveError.unreadable(reason: "it is not a regular file")
        }
        storage = .file(descriptor)
        size = Int(status.st_size)
    }

    init(data: Data) {
        storage = .memory(data)
        size = data.count
    }

    deinit {
        if case .file(let descriptor) = storage { close(descriptor) }
    }

    /// The `count` bytes at `offset`, fewer where the source ends.
    func bytes(at offset: Int, count: Int) throws -> [UInt8] {
        guard offset >= 0, offset <= size else { return [] }
        let count = Swift.min(count, size - offset)
        var bytes = [UInt8](repeating: 0, count: count)
        try bytes.withUnsafeMutableBytes { try fill($0, from: offset) }
        return bytes
    }

    /// Hands the `count` bytes at `offset` (inside the source) to `consume`, `chunkSize` at a time.
    func read(at offset: Int, count: Int, chunkSize: Int, _ consume: (UnsafeRawBufferPointer) throws -> Void) throws {
        precondition(offset >= 0 && count >= 0 && count <= size - offset, "a read inside the source")
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Swift.max(1, Swift.min(chunkSize, count)), alignment: 16)
        defer { buffer.deallocate() }
        var done = 0
        while done < count {
            let piece = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<Swift.min(buffer.count, count - done)])
            try fill(piece, from: offset + done)
            try consume(UnsafeRawBufferPointer(piece))
            done += piece.count
        }
    }

    /// Fills `buffer` with the bytes at `offset`; throws when the file ends sooner (it shrank while being read).
    func fill(_ buffer: UnsafeMutableRawBufferPointer, from offset: Int) throws {
        switch storage {
        case .memory(let data):
            guard offset + buffer.count <= data.count else { throw ZipArchiveError.unreadable(reason: "it ended early") }
            data.withUnsafeBytes { source in
                buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[offset..<(offset + buffer.count)]))
            }
        case .file(let descriptor):
            var done = 0
            while done < buffer.count {
                let read = pread(descriptor, buffer.baseAddress! + done, buffer.count - done, off_t(offset + done))
                if read < 0 && errno == EINTR { continue }
                guard read > 0 else {
                    throw ZipArchiveError.unreadable(reason: read == 0 ? "it ended early" : String(cString: strerror(errno)))
                }
                done += read
            }
        }
    }
}
