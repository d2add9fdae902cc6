import Foundation

/// `transcribe --manifest FILE`: one JSON line per input transcribed or failed, appended as each is done and flushed to
/// disk before the next (`fsync`), so a run killed midway leaves a manifest of what it did; several shards may append
/// to one file (each line is one `write` in append mode). Keys: `file` (the input's path), `output` (the files written;
/// empty on stdout or on failure), `duration` (seconds of audio), `model`, `seconds` (taken), `error` (nil when done).
/// A file's line follows its outputs: a process killed between the two leaves the outputs without the line (the
/// outputs, not the manifest, are what `--skip-existing` reads).
final class BatchManifest {
    struct Entry: Encodable {
        let file: String
        let output: [String]
        let duration: Double?
        let model: String?
        let seconds: Double
        let error: String?

        enum CodingKeys: String, CodingKey { case file, output, duration, model, seconds, error }

        /// Every key written, `null` for a missing value (a line's shape does not depend on the outcome).
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(file, forKey: .file)
            try container.encode(output, forKey: .output)
            try container.encode(duration, forKey: .duration)
            try container.encode(model, forKey: .model)
            try container.encode((seconds * 1_000).rounded() / 1_000, forKey: .seconds)
            try container.encode(error, forKey: .error)
        }
    }

    private let path: String
    private let descriptor: Int32
    private let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// Opens (creating) `path` for appending. Throws `CommandFailure` naming it when it cannot be.
    init(path: String) throws {
        self.path = path
        descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw CommandFailure("cannot write the manifest \(path): \(String(cString: strerror(errno))); choose a file "
                + "you can write to.")
        }
    }

    deinit { close(descriptor) }

    /// Appends `entry` as one line and flushes it to disk.
    func append(_ entry: Entry) throws {
        var line = try encoder.encode(entry)
        line.append(0x0A)
        let written = line.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == line.count, fsync(descriptor) == 0 else {
            throw CommandFailure("cannot write the manifest \(path): \(String(cString: strerror(errno))).")
        }
    }
}
