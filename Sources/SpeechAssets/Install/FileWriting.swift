import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The file layer every installed byte goes through, so tests can inject a write failure (a full disk).
protocol FileWriting: Sendable {
    /// Opens `url` for writing: truncated, or appended to when `append` is true. Creates the file if needed.
    func openForWriting(_ url: URL, append: Bool) throws -> any FileSink
}

/// An open file being written. Used from one task or queue at a time.
protocol FileSink: AnyObject {
    func write(_ bytes: UnsafeRawBufferPointer) throws
    /// Flushes to disk and closes.
    func close() throws
}

extension FileSink {
    func write(_ data: Data) throws {
        try data.withUnsafeBytes { try write($0) }
    }
}

/// A write that failed with `errno`, e.g. `ENOSPC` when the disk is full.
struct FileWriteError: Error, Sendable {
    let path: String
    let code: Int32
    var isOutOfSpace: Bool { code == ENOSPC || code == EDQUOT }
    var reason: String { String(cString: strerror(code)) }
}

/// The real file system, through POSIX calls so `ENOSPC` reaches us as itself.
struct PosixFileWriting: FileWriting {
    func openForWriting(_ url: URL, append: Bool) throws -> any FileSink {
        let flags = O_WRONLY | O_CREAT | O_CLOEXEC | (append ? O_APPEND : O_TRUNC)
        let fd = open(url.path, flags, 0o644)
        guard fd >= 0 else { throw FileWriteError(path: url.path, code: errno) }
        return PosixFileSink(fd: fd, path: url.path)
    }
}

final class PosixFileSink: FileSink {
    private var fd: Int32
    private let path: String

    init(fd: Int32, path: String) {
        self.fd = fd
        self.path = path
    }

    deinit {
        if fd >= 0 { _ = posixClose(fd) }
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws {
        guard var base = bytes.baseAddress else { return }
        var remaining = bytes.count
        while remaining > 0 {
            let written = posixWrite(fd, base, remaining)
            if written < 0 {
                if errno == EINTR { continue }
                throw FileWriteError(path: path, code: errno)
            }
            remaining -= written
            base += written
        }
    }

    func close() throws {
        guard fd >= 0 else { return }
        let syncResult = fsync(fd)
        let syncErrno = errno
        let closeResult = posixClose(fd)
        fd = -1
        if syncResult != 0 { throw FileWriteError(path: path, code: syncErrno) }
        if closeResult != 0 { throw FileWriteError(path: path, code: errno) }
    }
}

// Module-level names for the C calls that `PosixFileSink`'s own `write`/`close` methods shadow.
func posixClose(_ fd: Int32) -> Int32 { close(fd) }
func posixWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int { write(fd, buffer, count) }
