import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An exclusive advisory lock on a file (`flock`), held across processes until released or the process dies —
/// the kernel drops it on `kill -9`, so a crashed installer never blocks the next one.
/// `flock` locks belong to the open file, so two locks in one process exclude each other too.
final class FileLock: Sendable {
    private let fd: Int32

    private init(fd: Int32) {
        self.fd = fd
    }

    deinit {
        _ = flock(fd, LOCK_UN)
        _ = posixClose(fd)
    }

    /// Waits, without blocking a thread, until the lock is ours. Cancellable.
    static func acquire(_ url: URL) async throws -> FileLock {
        let fd = try openLockFile(url)
        while true {
            if flock(fd, LOCK_EX | LOCK_NB) == 0 { return FileLock(fd: fd) }
            let code = errno
            guard code == EWOULDBLOCK || code == EINTR else {
                _ = posixClose(fd)
                throw ModelAssetError.fileSystem(path: url.path, reason: String(cString: strerror(code)))
            }
            do {
                try await Task.sleep(nanoseconds: 50_000_000)
            } catch {
                _ = posixClose(fd)
                throw error
            }
        }
    }

    /// Runs `body` holding the lock, synchronously (for short critical sections such as the reservations file).
    static func withLock<T>(_ url: URL, _ body: () throws -> T) throws -> T {
        let fd = try openLockFile(url)
        defer { _ = posixClose(fd) }
        while flock(fd, LOCK_EX) != 0 {
            guard errno == EINTR else {
                throw ModelAssetError.fileSystem(path: url.path, reason: String(cString: strerror(errno)))
            }
        }
        defer { _ = flock(fd, LOCK_UN) }
        return try body()
    }

    /// Whether another open file holds the lock right now.
    static func isHeld(_ url: URL) -> Bool {
        let fd = open(url.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { _ = posixClose(fd) }
        if flock(fd, LOCK_SH | LOCK_NB) == 0 {
            _ = flock(fd, LOCK_UN)
            return false
        }
        return errno == EWOULDBLOCK
    }

    private static func openLockFile(_ url: URL) throws -> Int32 {
        try? FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let fd = open(url.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw ModelAssetError.fileSystem(path: url.path, reason: String(cString: strerror(errno)))
        }
        return fd
    }
}
