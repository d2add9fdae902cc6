import Foundation

/// One input of `transcribe`: the path read, and the name its outputs take in an output folder (`outputName`, without
/// extension: a file's own name, or its path within the folder given, so the outputs mirror the input tree).
struct TranscriptionInput: Equatable, Sendable {
    /// The path read (as given, or the folder given joined with `relativePath`); `-` is stdin.
    let path: String
    /// The path within the folder it was found in (nil: given by itself).
    let relativePath: String?

    /// The outputs' name in an output folder, without extension: `relativePath`'s without its extension (a folder's
    /// files), else the file's name (`stdin` for `-`).
    var outputName: String {
        if path == "-" { return "stdin" }
        return ((relativePath ?? URL(fileURLWithPath: path).lastPathComponent) as NSString).deletingPathExtension
    }

    /// What `--shard` hashes: the path within the folder given, else the path as given; the same on every machine
    /// that runs the same command in the same place.
    var shardKey: String { relativePath ?? path }
}

/// `transcribe`'s arguments as inputs: a folder is walked (`FolderWalk`), anything else is one input as given (a file,
/// `-`, a pipe). Throws `CommandFailure` for a folder that cannot be read.
enum TranscriptionInputs {
    static func expand(_ arguments: [String]) throws -> (inputs: [TranscriptionInput], folders: [String]) {
        var inputs: [TranscriptionInput] = [], folders: [String] = []
        for argument in arguments {
            var isDirectory: ObjCBool = false
            guard argument != "-", FileManager.default.fileExists(atPath: argument, isDirectory: &isDirectory),
                  isDirectory.boolValue else {
                inputs.append(TranscriptionInput(path: argument, relativePath: nil))
                continue
            }
            folders.append(argument)
            let found = try FolderWalk(root: argument).audioFiles()
            inputs += found.map {
                TranscriptionInput(path: (argument as NSString).appendingPathComponent($0), relativePath: $0)
            }
        }
        return (inputs, folders)
    }
}

/// `--shard I/N`: a stable share of the inputs, so N processes running the same command with I = 0 … N−1 (a
/// Kubernetes indexed Job's `JOB_COMPLETION_INDEX`, a Slurm array's task id) take every input exactly once. An input
/// belongs to shard `FNV-1a(shardKey) mod N` (64-bit FNV-1a of the key's UTF-8: the same on every machine, unlike
/// Swift's seeded `Hasher`).
struct Shard: Equatable, Sendable {
    let index: Int
    let count: Int

    /// Parses `I/N` (0 ≤ I < N); nil when `text` is not that.
    init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]), count >= 1, (0..<count).contains(index)
        else { return nil }
        self.index = index
        self.count = count
    }

    func contains(_ input: TranscriptionInput) -> Bool {
        Int(Self.fnv1a(input.shardKey) % UInt64(count)) == index
    }

    static func fnv1a(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }
}
