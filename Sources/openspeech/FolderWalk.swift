import Foundation

/// The audio and video files under a folder, for `transcribe DIR`: every regular file, recursively, whose extension
/// is an audio or video format's or whose first bytes are a container's signature (`SpooledInput.startsContainer`);
/// everything else is left alone. Hidden entries (`.name`: a checkout's `.git`, macOS's `._name.wav` resource forks)
/// are skipped; a symbolic link is followed only when what it points to is inside the folder, and a folder reached
/// twice is walked once (no loops). Named pipes, sockets and devices are never opened. Paths come back relative to
/// the folder, sorted, so every run lists the same files in the same order.
struct FolderWalk {
    let root: String

    /// Extensions of formats FFmpeg reads that hold audio (lowercased).
    static let audioExtensions: Set<String> = [
        "wav", "wave", "flac", "mp3", "mp2", "m4a", "m4b", "aac", "ogg", "oga", "opus", "spx", "wma", "aif", "aiff",
        "aifc", "caf", "amr", "awb", "ac3", "eac3", "dts", "ape", "wv", "tta", "mka", "au", "snd", "voc", "w64",
        "mp4", "m4v", "mov", "mkv", "webm", "avi", "wmv", "flv", "mpg", "mpeg", "ts", "mts", "m2ts", "3gp", "3g2",
    ]

    /// The audio files' paths relative to `root`, sorted. Throws `CommandFailure` when `root` cannot be read.
    func audioFiles() throws -> [String] {
        guard let top = realpath(root, nil) else {
            throw CommandFailure("cannot read the folder \(root): \(String(cString: strerror(errno))).")
        }
        let resolvedRoot = String(cString: top)
        free(top)
        var visited: Set<String> = [resolvedRoot]
        var found: [String] = []
        try walk(relative: "", resolved: resolvedRoot, resolvedRoot: resolvedRoot, visited: &visited, into: &found)
        return found.sorted()
    }

    private func walk(relative: String, resolved: String, resolvedRoot: String, visited: inout Set<String>,
                      into found: inout [String]) throws {
        let path = relative.isEmpty ? root : (root as NSString).appendingPathComponent(relative)
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: path)
        } catch {
            throw CommandFailure("cannot read the folder \(path): \((error as NSError).localizedDescription).")
        }
        for name in names.sorted() where !name.hasPrefix(".") {
            let entryRelative = relative.isEmpty ? name : (relative as NSString).appendingPathComponent(name)
            let entry = (root as NSString).appendingPathComponent(entryRelative)
            var status = stat()
            guard lstat(entry, &status) == 0 else { continue }
            var kind = status.st_mode & S_IFMT
            var target = (resolved as NSString).appendingPathComponent(name)
            if kind == S_IFLNK {
                // Followed only to something inside the folder.
                guard let real = realpath(entry, nil) else { continue }
                target = String(cString: real)
                free(real)
                guard target == resolvedRoot || target.hasPrefix(resolvedRoot + "/"), stat(target, &status) == 0 else {
                    continue
                }
                kind = status.st_mode & S_IFMT
            }
            switch kind {
            case S_IFDIR:
                guard visited.insert(target).inserted else { continue }
                try walk(relative: entryRelative, resolved: target, resolvedRoot: resolvedRoot, visited: &visited,
                         into: &found)
            case S_IFREG:
                if Self.isAudio(path: entry, name: name) { found.append(entryRelative) }
            default:
                continue  // a pipe, socket or device: never opened
            }
        }
    }

    /// Whether the regular file at `path` is audio or video: by its extension, else by its first bytes.
    static func isAudio(path: String, name: String) -> Bool {
        if audioExtensions.contains((name as NSString).pathExtension.lowercased()) { return true }
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        let prefix = (try? handle.read(upToCount: SpooledInput.signatureLength)) ?? Data()
        return SpooledInput.startsContainer(Array(prefix))
    }
}
