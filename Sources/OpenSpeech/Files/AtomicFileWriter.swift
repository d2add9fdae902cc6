import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes a file whole or not at all: the bytes go to a temporary file beside the destination, which is then
/// renamed over it, so readers see the old file or the new one, never part of one. Missing folders are created.
/// Failures throw an `SFSpeechError` saying what could not be written, why, and what to do; no temporary file
/// is left behind. Used by the custom language model's exports and the command line's transcripts.
package enum AtomicFileWriter {
    /// Writes `data` to `url`; `what` names the contents in error messages ("custom language model data").
    package static func write(_ data: Data, to url: URL, what: String) throws {
        guard url.isFileURL else {
            throw SFSpeechError(.missingParameter, "Cannot write the \(what) to \(url.absoluteString): give a file URL "
                + "(URL(fileURLWithPath:) or URL(filePath:)).")
        }
        let path = url.standardizedFileURL.path
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw SFSpeechError(.missingParameter, "Cannot write the \(what) to \(path): it is a folder. Give the path "
                + "of a file, such as \(url.appendingPathComponent("model.bin").path).")
        }
        let folder = url.standardizedFileURL.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw SFSpeechError(.internalServiceError, "Cannot write the \(what) to \(path): the folder \(folder.path) "
                + "cannot be created (\(error.localizedDescription)). Choose a folder you can write to.")
        }
        let temporary = folder.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp").path
        do {
            try writeNew(data, at: temporary)
        } catch {
            unlink(temporary)
            throw error.error(writing: what, to: path)
        }
        if rename(temporary, path) != 0 {
            let failure = WriteFailure(code: errno)
            unlink(temporary)
            throw failure.error(writing: what, to: path)
        }
    }

    /// Creates `path` (which must not exist) holding `data`, flushed to disk.
    private static func writeNew(_ data: Data, at path: String) throws(WriteFailure) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        guard descriptor >= 0 else { throw WriteFailure(code: errno) }
        defer { close(descriptor) }
        let code: Int32 = data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = writeBytes(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += written
            }
            return fsync(descriptor) == 0 ? 0 : errno
        }
        if code != 0 { throw WriteFailure(code: code) }
    }

    /// A system call's failure, by `errno`.
    struct WriteFailure: Error {
        let code: Int32

        func error(writing what: String, to path: String) -> SFSpeechError {
            let reason = String(cString: strerror(code))
            switch code {
            case EACCES, EPERM, EROFS:
                return SFSpeechError(.internalServiceError, "Cannot write the \(what) to \(path): \(reason). "
                    + "Choose a folder you can write to.")
            case ENOSPC, EDQUOT:
                return SFSpeechError(.insufficientResources, "Cannot write the \(what) to \(path): \(reason). "
                    + "Free some disk space or write to another disk.")
            case ENOENT, ENOTDIR:
                return SFSpeechError(.internalServiceError, "Cannot write the \(what) to \(path): \(reason). "
                    + "Check that every folder on the path exists and is a folder.")
            case EISDIR:
                return SFSpeechError(.missingParameter, "Cannot write the \(what) to \(path): it is a folder. "
                    + "Give the path of a file.")
            default:
                return SFSpeechError(.internalServiceError, "Cannot write the \(what) to \(path): \(reason). "
                    + "Check the path and try again.")
            }
        }
    }
}

/// `write(2)`.
private func writeBytes(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
    Glibc.write(descriptor, bytes, count)
    #else
    Darwin.write(descriptor, bytes, count)
    #endif
}
