import Foundation

/// A stream transcribed as a file: stdin (`transcribe -` on a stream in a container: WAV, FLAC, MP3, Ogg, MP4,
/// Matroska...) or a pipe given as a path (a named pipe, or the shell's process substitution `<(ffmpeg ...)`), read to
/// its end into a temporary file (`copy(from:after:)`), which is then transcribed as a file path would be (the same
/// text, formats and JSON). The file lies in a folder of its own under the temporary folder (`TMPDIR`, else /tmp), so
/// it is bounded by that disk; it is removed by `remove()`, which the command calls on every way out, Ctrl-C included
/// (also while the stream is being read). A WAV stream's sizes, left open by a writer that cannot seek back (ffmpeg,
/// arecord), are set to the audio's once it has all arrived.
final class SpooledInput: Sendable {
    /// The temporary file.
    let url: URL
    private let folder: URL
    /// What the stream is, for messages: "stdin" or the path given.
    let source: String

    /// How many bytes `startsContainer` looks at.
    static let signatureLength = 12

    /// The first `signatureLength` bytes of stdin (fewer when it ends first).
    static func readPrefix() -> [UInt8] {
        var prefix = [UInt8](repeating: 0, count: signatureLength)
        var count = 0
        while count < signatureLength {
            let got = prefix.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress! + count, signatureLength - count) }
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else { break }
            count += got
        }
        return Array(prefix.prefix(count))
    }

    /// Whether `prefix`, the first bytes of stdin, starts a container FFmpeg reads (its signature); raw PCM has none.
    static func startsContainer(_ prefix: [UInt8]) -> Bool {
        func at(_ offset: Int, _ text: String) -> Bool {
            let bytes = Array(text.utf8)
            return prefix.count >= offset + bytes.count && Array(prefix[offset..<(offset + bytes.count)]) == bytes
        }
        return (at(0, "RIFF") || at(0, "RF64")) && at(8, "WAVE") || at(0, "fLaC") || at(0, "OggS") || at(0, "ID3")
            || at(4, "ftyp") || prefix.starts(with: [0x1A, 0x45, 0xDF, 0xA3]) || at(0, "FORM") && (at(8, "AIFF") || at(8, "AIFC"))
            || at(0, ".snd") || at(0, "caff") || at(0, "#!AMR")
    }

    /// Whether `path` is a pipe (a named pipe, `/dev/fd/N` of a process substitution): a stream to read to its end,
    /// which the audio reader refuses as a path (it reads files, whose length is known).
    static func isPipe(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFIFO
    }

    /// A new temporary folder for the copy of `source` ("stdin" or a pipe's path). Throws `CommandFailure` naming the
    /// temporary folder when it cannot be written.
    init(source: String) throws {
        self.source = source
        let base = FileManager.default.temporaryDirectory
        var template = Array(base.appendingPathComponent("openspeech-input.XXXXXX").path.utf8CString)
        guard let made = mkdtemp(&template) else {
            throw CommandFailure("cannot keep \(source) in a temporary file: the folder \(base.path) cannot be written "
                + "(\(String(cString: strerror(errno)))); set TMPDIR to a folder you can write to.")
        }
        folder = URL(fileURLWithPath: String(cString: made), isDirectory: true)
        url = folder.appendingPathComponent("input")
    }

    /// Removes the file and its folder. Safe to call more than once, from any thread (a signal handler's).
    func remove() {
        unlink(url.path)
        rmdir(folder.path)
    }

    /// Writes `prefix` (the stream's bytes already read), then the rest of the stream `descriptor` reads to its end,
    /// into the file; a WAV's open sizes are then set. Throws `CommandFailure` naming the folder when the file cannot be
    /// written (a full disk), or the source when it cannot be read.
    func copy(from descriptor: Int32, after prefix: [UInt8] = []) throws {
        let path = url.path
        let output = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard output >= 0 else { throw failure(errno, path) }
        defer { close(output) }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var total = 0, head: [UInt8] = []  // the stream's first bytes (is it a WAV?)
        var pending = prefix.count
        buffer.replaceSubrange(0..<prefix.count, with: prefix)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + pending, $0.count - pending) }
            if count < 0 {
                if errno == EINTR { continue }
                throw CommandFailure("cannot read \(source): \(String(cString: strerror(errno))).")
            }
            pending += count
            if count == 0 || pending == buffer.count {
                try buffer.withUnsafeBytes { try writeAll(output, $0.baseAddress!, pending, path: path) }
                if head.count < 4 { head += buffer.prefix(min(4 - head.count, pending)) }
                total += pending
                pending = 0
            }
            if count == 0 { break }
        }
        if head.elementsEqual("RIFF".utf8) { try closeWAVSizes(output, length: total, path: path) }
    }

    private func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int, path: String) throws {
        var offset = 0
        while offset < count {
            let written = write(descriptor, bytes + offset, count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw failure(errno, path)
            }
            offset += written
        }
    }

    /// Sets the RIFF size and the size of a `data` chunk that runs to the end of the file to the bytes present, so
    /// the file declares the duration it holds. Other WAV files are left as they are.
    private func closeWAVSizes(_ descriptor: Int32, length: Int, path: String) throws {
        guard length >= 12, length - 8 <= Int(UInt32.max) else { return }
        var offset = 12
        while offset + 8 <= length {
            var header = [UInt8](repeating: 0, count: 8)
            guard pread(descriptor, &header, 8, off_t(offset)) == 8 else { return }
            let size = header[4..<8].reversed().reduce(0) { $0 << 8 | Int($1) }
            if header[0..<4].elementsEqual("data".utf8) {
                let present = length - offset - 8
                if size > present { try patch(descriptor, at: offset + 4, UInt32(present), path: path) }
                break
            }
            offset += 8 + size + (size & 1)
        }
        try patch(descriptor, at: 4, UInt32(length - 8), path: path)
    }

    private func patch(_ descriptor: Int32, at offset: Int, _ value: UInt32, path: String) throws {
        let bytes = (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
        guard pwrite(descriptor, bytes, 4, off_t(offset)) == 4 else { throw failure(errno, path) }
    }

    private func failure(_ code: Int32, _ path: String) -> CommandFailure {
        let folder = (path as NSString).deletingLastPathComponent
        let live = source == "stdin" ? ", or stream it live (--live)" : ""
        let advice = code == ENOSPC || code == EDQUOT
            ? "set TMPDIR to a folder on a disk with room\(live)"
            : "set TMPDIR to a folder you can write to"
        return CommandFailure("cannot keep \(source) in a temporary file in \(folder): \(String(cString: strerror(code))); \(advice).")
    }
}
