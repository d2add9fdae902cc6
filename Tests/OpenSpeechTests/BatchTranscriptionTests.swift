import Foundation
import SpeechEvaluation
import Testing
import TestSupport

/// `openspeech transcribe DIR` as a cluster task runs it (issue 46): folders walked, shares of one folder taken by
/// processes at once (`--shard`), a damaged file reported while the rest go on, a killed run resumed
/// (`--skip-existing`), every file recorded (`--manifest`). English's default model (Moonshine) on short clips.
@Suite(.serialized) struct BatchTranscriptionTests {
    static var environment: [String: String] { ["OPENSPEECH_HOME": TestModels.home.path] }
    static let options = ["--language", "english", "--format", "json", "--no-download"]

    /// The manifest's lines as objects.
    static func manifest(_ url: URL) throws -> [[String: Any]] {
        try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any], "\($0)")
        }
    }

    /// The files under `folder`, relative to it, sorted (hidden ones too: a leftover temporary file would show).
    static func files(under folder: URL) -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: folder.path)
        var found: [String] = []
        while let path = enumerator?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: folder.appendingPathComponent(path).path, isDirectory: &isDirectory),
               !isDirectory.boolValue {
                found.append(path)
            }
        }
        return found.sorted()
    }

    /// The text of a verbose_json output.
    static func text(_ url: URL) throws -> String {
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        return try #require(json["text"] as? String)
    }

    @Test("two shards of one folder at once: every audio file transcribed once, the tree mirrored, other files ignored, a damaged one reported while the rest go on")
    func shardsCoverTheFolderOnce() async throws {
        try await TestEnvironment.ready()
        let base = try makeTemporaryDirectory("openspeech-batch-shards")
        defer { try? FileManager.default.removeItem(at: base) }
        let tree = base.appendingPathComponent("tree"), outside = base.appendingPathComponent("outside")
        let fileManager = FileManager.default
        for folder in [tree.appendingPathComponent("deep/deeper"), outside] {
            try fileManager.createDirectory(at: folder, withIntermediateDirectories: true)
        }
        let jfk = try #require(Corpus.item("jfk")), short = try #require(Corpus.item("LJ001-0002"))
        let quilter = try #require(Corpus.item("1272-128104-0000"))
        try fileManager.copyItem(at: jfk.wav16kURL, to: tree.appendingPathComponent("one.wav"))
        _ = try await runCommand("ffmpeg", ["-v", "error", "-i", short.wav16kURL.path,
                                            tree.appendingPathComponent("deep/two.flac").path])
        // Audio without an extension: found by its first bytes.
        try fileManager.copyItem(at: quilter.wav16kURL, to: tree.appendingPathComponent("deep/deeper/three"))
        // Not audio, hidden, out of the tree, a second way into the tree, a named pipe (never opened): all ignored.
        try Data("meeting notes\n".utf8).write(to: tree.appendingPathComponent("notes.txt"))
        try fileManager.copyItem(at: jfk.wav16kURL, to: tree.appendingPathComponent(".hidden.wav"))
        try fileManager.copyItem(at: jfk.wav16kURL, to: outside.appendingPathComponent("elsewhere.wav"))
        try fileManager.createSymbolicLink(at: tree.appendingPathComponent("outside-link"), withDestinationURL: outside)
        try fileManager.createSymbolicLink(at: tree.appendingPathComponent("deep/loop"), withDestinationURL: tree)
        #expect(mkfifo(tree.appendingPathComponent("pipe.wav").path, 0o644) == 0)
        // A damaged recording: an MP3's name, random bytes.
        var generator = SystemRandomNumberGenerator()
        try Data((0..<20_000).map { _ in UInt8.random(in: 0...255, using: &generator) })
            .write(to: tree.appendingPathComponent("deep/broken.mp3"))

        let out = base.appendingPathComponent("out")
        let manifests = (0..<2).map { base.appendingPathComponent("manifest-\($0).jsonl") }
        let logs = (0..<2).map { base.appendingPathComponent("shard-\($0).log") }
        let processes = try (0..<2).map { index in
            try OpenSpeechExecutable.start(
                ["transcribe", tree.path, "--output-dir", out.path, "--shard", "\(index)/2", "--manifest",
                 manifests[index].path] + Self.options, environment: Self.environment, output: logs[index])
        }
        for process in processes { process.waitUntilExit() }
        let messages = try logs.map { try String(contentsOf: $0, encoding: .utf8) }

        #expect(Self.files(under: out) == ["deep/deeper/three.json", "deep/two.json", "one.json"], "\(messages)")
        // Each file in one shard's manifest, none in both.
        let entries = try manifests.map { FileManager.default.fileExists(atPath: $0.path) ? try Self.manifest($0) : [] }
        let shares = entries.map { $0.compactMap { $0["file"] as? String }.map { String($0.dropFirst(tree.path.count + 1)) } }
        #expect((shares[0] + shares[1]).sorted() == ["deep/broken.mp3", "deep/deeper/three", "deep/two.flac", "one.wav"],
                "\(entries)")
        let all = entries[0] + entries[1]
        let failed = try #require(all.first { $0["file"] as? String == tree.path + "/deep/broken.mp3" })
        #expect(failed["error"] as? String != nil && (failed["output"] as? [Any])?.isEmpty == true, "\(failed)")
        #expect(all.filter { $0["error"] is NSNull }.allSatisfy {
            ($0["model"] as? String) == "moonshine-base-en" && ($0["duration"] as? Double ?? 0) > 1
        }, "\(all)")
        // The shard that had the damaged file names it and exits 1; the other exits 0.
        for index in 0..<2 {
            let hadBroken = shares[index].contains("deep/broken.mp3")
            #expect(processes[index].terminationStatus == (hadBroken ? 1 : 0), "\(messages[index])")
            if hadBroken { #expect(messages[index].contains("failed: \(tree.path)/deep/broken.mp3"), "\(messages[index])") }
        }
        #expect(try Self.text(out.appendingPathComponent("one.json")).contains("ask not what your country"))
        let three = try Self.text(out.appendingPathComponent("deep/deeper/three.json"))
        #expect(WordErrorRate.score(reference: quilter.transcript, hypothesis: three, language: "en").rate < 0.1, "\(three)")

        // The same shard again takes the same files.
        let again = base.appendingPathComponent("again"), againManifest = base.appendingPathComponent("again.jsonl")
        _ = try await OpenSpeechExecutable.run(
            ["transcribe", tree.path, "--output-dir", again.path, "--shard", "0/2", "--manifest", againManifest.path]
                + Self.options, environment: Self.environment)
        #expect(try Self.manifest(againManifest).compactMap { $0["file"] as? String }
                == entries[0].compactMap { $0["file"] as? String })
    }

    @Test("a batch killed with SIGKILL after its first output: the rerun with --skip-existing does only the rest, every output whole")
    func killedBatchResumes() async throws {
        try await TestEnvironment.ready()
        let base = try makeTemporaryDirectory("openspeech-batch-resume")
        defer { try? FileManager.default.removeItem(at: base) }
        let tree = base.appendingPathComponent("tree")
        try FileManager.default.createDirectory(at: tree, withIntermediateDirectories: true)
        // Walked in name order; the second is four minutes (seconds of work), so the kill lands while it is decoded.
        let items = try ["jfk", "ls-other-chapter-7902-96592", "1995-1837-0001"].map { try #require(Corpus.item($0)) }
        for (name, item) in zip(["a.wav", "b.wav", "c.wav"], items) {
            try FileManager.default.copyItem(at: item.wav16kURL, to: tree.appendingPathComponent(name))
        }
        let out = base.appendingPathComponent("out"), manifest = base.appendingPathComponent("manifest.jsonl")
        let log = base.appendingPathComponent("killed.log")
        let process = try OpenSpeechExecutable.start(
            ["transcribe", tree.path, "--output-dir", out.path, "--manifest", manifest.path] + Self.options,
            environment: Self.environment, output: log)
        // Killed once the first file is done: its output written and its manifest line flushed.
        let manifestPath = manifest.path
        sendSignal(SIGKILL, to: process.processIdentifier, when: {
            ((try? FileManager.default.attributesOfItem(atPath: manifestPath)[.size] as? Int) ?? 0) > 0
        })
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL)
        #expect(Self.files(under: out) == ["a.json"], "nothing half-written: \(Self.files(under: out))")
        #expect(try Self.manifest(manifest).map { $0["file"] as? String } == [tree.path + "/a.wav"])

        let rerun = try await OpenSpeechExecutable.run(
            ["transcribe", tree.path, "--output-dir", out.path, "--manifest", manifest.path, "--skip-existing"]
                + Self.options, environment: Self.environment)
        #expect(rerun.status == 0, "\(rerun.output)")
        #expect(rerun.output.contains("2 transcribed, 1 skipped (outputs already written)"), "\(rerun.output)")
        #expect(try Self.manifest(manifest).map { $0["file"] as? String } == ["a", "b", "c"].map { tree.path + "/\($0).wav" })
        #expect(Self.files(under: out) == ["a.json", "b.json", "c.json"])
        for (name, item) in zip(["a", "b", "c"], items) {
            let text = try Self.text(out.appendingPathComponent("\(name).json"))
            let errors = WordErrorRate.score(reference: item.transcript, hypothesis: text, language: "en")
            #expect(errors.rate < 0.15, "\(name): WER \(errors.rate): \(text)")
        }
        // Everything written: a third run has nothing to do and says so.
        let third = try await OpenSpeechExecutable.run(
            ["transcribe", tree.path, "--output-dir", out.path, "--skip-existing"] + Self.options,
            environment: Self.environment)
        #expect(third.status == 0 && third.output.contains("nothing to transcribe: 3 skipped"), "\(third.output)")
    }

    @Test("batch options refused with a sentence before any work: a folder without audio, a shard out of range, --skip-existing to stdout, a manifest that cannot be written, batch options on stdin")
    func refusals() async throws {
        let base = try makeTemporaryDirectory("openspeech-batch-refusals")
        defer { try? FileManager.default.removeItem(at: base) }
        let empty = base.appendingPathComponent("notes")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        try Data("minutes\n".utf8).write(to: empty.appendingPathComponent("minutes.txt"))
        let clip = try #require(Corpus.item("jfk")).wav16kURL.path
        let cases: [(arguments: [String], status: Int32, says: String)] = [
            ([empty.path], 1, "openspeech: no audio or video files in \(empty.path) (files are taken by their extension"),
            ([clip, "--shard", "2/2"], 64, "The value '2/2' is invalid for '--shard <shard>'"),
            ([clip, "--shard", "one of two"], 64, "invalid for '--shard <shard>'"),
            ([clip, "--skip-existing"], 64, "--skip-existing leaves out files whose outputs exist: give --output-dir"),
            ([clip, "--manifest", base.appendingPathComponent("missing/manifest.jsonl").path], 1,
             "openspeech: cannot write the manifest \(base.path)/missing/manifest.jsonl: No such file or directory; "
                + "choose a file you can write to."),
            (["-", "--shard", "0/2"], 64, "--skip-existing, --shard and --manifest are for files and folders, not - (stdin)."),
        ]
        for (arguments, status, says) in cases {
            let run = try await OpenSpeechExecutable.run(["transcribe"] + arguments + Self.options,
                                                         environment: Self.environment)
            #expect(run.status == status && run.output.contains(says), "\(arguments): \(run.status) \(run.output)")
        }
    }
}
