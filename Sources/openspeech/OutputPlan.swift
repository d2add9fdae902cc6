import Foundation
import OpenSpeech

/// Where `transcribe` writes each input's documents: stdout, a folder (`--output-dir`, or `-o` naming a folder as
/// whisper's `-o` does: an existing folder or a path ending in `/`; a folder's inputs mirror their tree in it), or
/// one file (`-o FILE`; with `--format all`, its name with each format's extension). Decided and checked before any
/// audio is decoded: missing folders are created, and a place that cannot be written, or two inputs that would write
/// the same file, are refused with a sentence naming the path.
struct OutputPlan {
    enum Target: Equatable {
        case standardOutput
        case folder(URL)
        case file(URL)
    }

    let target: Target
    let format: OutputFormat

    /// The format written: the one given, else the extension of `-o`'s file (`.srt`, `.vtt`, `.json`, `.tsv`,
    /// `.txt`), else text.
    static func format(given: OutputFormat?, output: String?) -> OutputFormat {
        guard let given else {
            guard let output, !isFolder(output) else { return .text }
            return OutputFormat(fileExtension: URL(fileURLWithPath: output).pathExtension) ?? .text
        }
        return given
    }

    /// Whether `-o`'s path names a folder: one that exists, or a path ending in `/`.
    static func isFolder(_ output: String) -> Bool {
        var isDirectory: ObjCBool = false
        return output.hasSuffix("/") || FileManager.default.fileExists(atPath: output, isDirectory: &isDirectory)
            && isDirectory.boolValue
    }

    /// The plan for `inputs` (`-` is stdin, written as `stdin.EXT` in a folder), checked.
    init(inputs: [TranscriptionInput], format given: OutputFormat?, output: String?, outputDirectory: String?) throws {
        if let output {
            if Self.isFolder(output) {
                target = .folder(URL(fileURLWithPath: output, isDirectory: true))
                format = given ?? .text
            } else {
                guard inputs.count == 1 else {
                    throw CommandFailure("-o \(output) is one file, for a single input, but \(inputs.count) inputs were "
                        + "given; give a folder to write one file per input (-o DIR/ or --output-dir DIR).")
                }
                target = .file(URL(fileURLWithPath: output))
                format = Self.format(given: given, output: output)
            }
        } else if let outputDirectory {
            target = .folder(URL(fileURLWithPath: outputDirectory, isDirectory: true))
            format = given ?? .text
        } else {
            format = given ?? .text
            target = format == .all ? .folder(URL(fileURLWithPath: ".", isDirectory: true)) : .standardOutput
        }
        try check(inputs)
    }

    /// The files `input`'s documents go to, one per format; nil for stdout.
    func destinations(for input: TranscriptionInput) -> [(format: Transcript.Format, url: URL?)] {
        format.formats.map { documentFormat in
            switch target {
            case .standardOutput:
                return (documentFormat, nil)
            case .folder(let folder):
                return (documentFormat, folder.appendingPathComponent("\(input.outputName).\(documentFormat.fileExtension)"))
            case .file(let file):
                return (documentFormat, format == .all
                    ? file.deletingPathExtension().appendingPathExtension(documentFormat.fileExtension) : file)
            }
        }
    }

    /// Whether every document of `input` is already written (`--skip-existing`): each is written whole or not at all
    /// (`AtomicFileWriter`), so one present is complete. Never for stdout.
    func isWritten(_ input: TranscriptionInput) -> Bool {
        destinations(for: input).allSatisfy { $0.url.map { FileManager.default.fileExists(atPath: $0.path) } ?? false }
    }

    /// Creates the folders written into and checks they can be written; refuses two inputs writing one file.
    private func check(_ inputs: [TranscriptionInput]) throws {
        switch target {
        case .standardOutput:
            return
        case .folder(let folder):
            try Self.makeWritableFolder(folder, for: "the output folder \(folder.path)")
        case .file(let file):
            try Self.makeWritableFolder(file.deletingLastPathComponent(), for: file.path)
        }
        var writers: [String: String] = [:]
        for input in inputs {
            for (_, url) in destinations(for: input) {
                guard let path = url?.standardizedFileURL.path else { continue }
                if let other = writers[path], other != input.path {
                    throw CommandFailure("\(other) and \(input.path) would both be written to \(path); transcribe them "
                        + "into different folders, or rename one.")
                }
                writers[path] = input.path
            }
        }
    }

    /// Creates `folder` and any missing parent, then checks it can be written into; `what` names the output in
    /// the sentence of a failure.
    private static func makeWritableFolder(_ folder: URL, for what: String) throws {
        var missing: [URL] = []
        var current = folder.standardizedFileURL
        var isDirectory: ObjCBool = false
        while !FileManager.default.fileExists(atPath: current.path, isDirectory: &isDirectory) {
            missing.append(current)
            current = current.deletingLastPathComponent()
        }
        guard isDirectory.boolValue else {
            throw CommandFailure("cannot write \(what): \(current.path) is a file, not a folder.")
        }
        for created in missing.reversed() where mkdir(created.path, 0o777) != 0 && errno != EEXIST {
            throw CommandFailure("cannot write \(what): the folder \(created.path) cannot be created "
                + "(\(String(cString: strerror(errno)))); choose a folder you can write to.")
        }
        guard access(folder.path, W_OK | X_OK) == 0 else {
            throw CommandFailure("cannot write \(what): the folder \(folder.standardizedFileURL.path) is not writable "
                + "(\(String(cString: strerror(errno)))); choose a folder you can write to.")
        }
    }
}
