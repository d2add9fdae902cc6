import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reading a file of a folder someone else made (`models add DIR`, a `directory` source): links are followed, and
/// only a regular file is opened. A FIFO, socket or device is refused before it is opened: opening a FIFO for
/// reading waits for a writer, and reading a device may never end.
enum RegularFile {
    /// Opens `url` for reading. Throws `ModelAssetError.unreadableFile` naming what is there instead of a file,
    /// or `ModelAssetError.sourceFileMissing` when nothing is.
    static func openForReading(_ url: URL) throws -> FileHandle {
        let path = url.path
        var info = stat()
        guard stat(path, &info) == 0 else { throw failure(path, code: errno) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw notRegular(path, mode: info.st_mode) }
        // Non-blocking, so a file swapped for a FIFO after the check still opens at once; then checked again.
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw failure(path, code: errno) }
        var opened = stat()
        guard fstat(fd, &opened) == 0, opened.st_mode & S_IFMT == S_IFREG else {
            let mode = opened.st_mode
            _ = posixClose(fd)
            throw notRegular(path, mode: mode)
        }
        return FileHandle(fileDescriptor: fd, closeOnDealloc: true)
    }

    /// The size of the regular file at `url`, through links; nil for anything else (a FIFO, a device, a folder, a
    /// dangling link) or nothing. Nothing is opened.
    static func size(of url: URL) -> Int64? {
        var info = stat()
        guard stat(url.path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return Int64(info.st_size)
    }

    /// The whole file at `url`, read as `openForReading` allows.
    static func contents(of url: URL) throws -> Data {
        let handle = try openForReading(url)
        defer { try? handle.close() }
        return try handle.readToEnd() ?? Data()
    }

    private static func notRegular(_ path: String, mode: mode_t) -> ModelAssetError {
        let kind = switch mode & S_IFMT {
        case S_IFIFO: "a FIFO (named pipe)"
        case S_IFSOCK: "a socket"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFDIR: "a folder"
        default: "something"
        }
        var link = stat()
        let through = lstat(path, &link) == 0 && link.st_mode & S_IFMT == S_IFLNK ? "a link to " : ""
        return .unreadableFile(path: path, reason: "it is \(through)\(kind), not a regular file; a model folder may "
                               + "hold only files and links to files")
    }

    private static func failure(_ path: String, code: Int32) -> ModelAssetError {
        var link = stat()
        let isLink = lstat(path, &link) == 0 && link.st_mode & S_IFMT == S_IFLNK
        switch code {
        case ENOENT where isLink:
            let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) ?? "?"
            return .unreadableFile(path: path, reason: "it is a link to \(target), which does not exist")
        case ENOENT, ENOTDIR:
            return .sourceFileMissing(path: path)
        case ELOOP:
            return .unreadableFile(path: path, reason: "it is a link that leads back to itself")
        default:
            return .unreadableFile(path: path, reason: String(cString: strerror(code)))
        }
    }
}
