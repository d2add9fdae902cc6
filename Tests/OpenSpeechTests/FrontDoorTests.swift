import Foundation
import SpeechEvaluation
import Testing
import TestSupport

/// `openspeech transcribe` as people use it (issue 41): a pipe is a file, outputs never lose work, what ran is said,
/// models know their languages, the habits of whisper's users work. tiny.en on short clips: each run takes seconds.
@Suite(.serialized) struct FrontDoorTests {
    static var environment: [String: String] { ["OPENSPEECH_HOME": TestModels.home.path] }
    static let english = ["--language", "english", "--model", "whisper-tiny.en", "--no-download"]

    /// Runs `command` in `shell` (a pipeline into the tool, which `$OPENSPEECH` names); stdout and stderr apart.
    static func shell(_ command: String, in shell: String = "sh") throws -> CommandResult {
        let tool = try #require(OpenSpeechExecutable.url)
        return try runCommand(shell, ["-c", command], environment: environment.merging(["OPENSPEECH": tool.path]) { $1 },
                              check: false)
    }

    /// The lines of `output` that are not the tool's messages (`openspeech: ...`).
    static func text(_ output: String) -> String {
        output.split(separator: "\n").filter { !$0.hasPrefix("openspeech:") }.joined(separator: "\n")
    }

    @Test("transcribe - from an ffmpeg pipe (WAV, FLAC), or a pipe given as a path, gives the file's text and its verbose_json, which names the model; stderr says the model")
    func pipeIsTheFile() async throws {
        try await TestEnvironment.ready()
        _ = try await TestModels.directory(for: "silero-vad")
        let clip = try #require(Corpus.item("jfk")).wav16kURL.path
        let (status, output) = try await OpenSpeechExecutable.run(["transcribe", clip] + Self.english,
                                                                  environment: Self.environment)
        #expect(status == 0, "\(output)")
        #expect(output.contains("openspeech: model whisper-tiny.en, compute type "), "\(output)")
        let fileText = Self.text(output)
        #expect(fileText.contains("ask not what your country"), "\(output)")

        let wav = try Self.shell("ffmpeg -v error -i '\(clip)' -f wav - | \"$OPENSPEECH\" transcribe - \(Self.english.joined(separator: " ")) --quiet")
        #expect(wav.status == 0, "\(wav.stderr)")
        #expect(wav.stdoutText.trimmingCharacters(in: .newlines) == fileText, "\(wav.stdoutText)")

        // A pipe given as a path (bash's process substitution, `/dev/fd/N`), beside a file: read to its end, then the same.
        let substituted = try Self.shell("\"$OPENSPEECH\" transcribe <(ffmpeg -v error -i '\(clip)' -f wav -) '\(clip)' "
                                         + Self.english.joined(separator: " ") + " --quiet", in: "bash")
        #expect(substituted.status == 0, "\(substituted.stderr)")
        let texts = substituted.stdoutText.split(separator: "\n", omittingEmptySubsequences: true)
        #expect(texts.joined(separator: "\n") == [fileText, fileText].joined(separator: "\n"), "\(substituted.stdoutText)")

        let flac = try Self.shell("ffmpeg -v error -i '\(clip)' -f flac - | \"$OPENSPEECH\" transcribe - \(Self.english.joined(separator: " ")) --format json --quiet")
        #expect(flac.status == 0, "\(flac.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: flac.stdout) as? [String: Any], "\(flac.stdoutText)")
        #expect(json["model"] as? String == "whisper-tiny.en")
        #expect(json["text"] as? String == fileText)
        #expect((json["segments"] as? [Any])?.isEmpty == false && json["words"] == nil, "verbose_json, words only when asked")
    }

    @Test("a 16 kHz mono WAV is transcribed without loading FFmpeg's libraries (40 ms of every process that loads them); a FLAC loads them on first use")
    func wavNeedsNoFFmpeg() async throws {
        try await TestEnvironment.ready()
        let jfk = try #require(Corpus.item("jfk"))
        for (clip, loadsFFmpeg) in [(jfk.wav16kURL, false), (jfk.originalURL, true)] {
            // The dynamic loader names every library it loads (glibc's LD_DEBUG), on lines of its own ("PID:\t...").
            let (status, output) = try await OpenSpeechExecutable.run(
                ["transcribe", clip.path, "--quiet"] + Self.english,
                environment: Self.environment.merging(["LD_DEBUG": "files"]) { $1 })
            #expect(status == 0, "\(output)")
            #expect(output.contains("file=libavcodec.so") == loadsFFmpeg, "\(clip.lastPathComponent)")
            let text = output.split(separator: "\n").filter { !$0.contains(":\t") }.joined(separator: "\n")
            #expect(text.contains("ask not what your country can do for you"), "\(clip.lastPathComponent): \(text)")
        }
    }

    @Test("-o: a folder is written into, a missing parent is created, the extension gives the format; a place that cannot be written is refused before any audio, in one line naming it")
    func outputs() async throws {
        try await TestEnvironment.ready()
        let clip = try #require(Corpus.item("jfk")).wav16kURL.path
        let folder = try makeTemporaryDirectory("openspeech-outputs")
        defer { try? FileManager.default.removeItem(at: folder) }

        let (intoFolder, folderOutput) = try await OpenSpeechExecutable.run(
            ["transcribe", clip, "-o", folder.path, "--format", "srt", "--quiet"] + Self.english, environment: Self.environment)
        #expect(intoFolder == 0, "\(folderOutput)")
        let srt = try String(contentsOf: folder.appendingPathComponent("jfk.srt"), encoding: .utf8)
        #expect(srt.hasPrefix("1\n00:00:"), "\(srt)")

        let nested = folder.appendingPathComponent("sub/missing/x.json")
        let (created, createdOutput) = try await OpenSpeechExecutable.run(
            ["transcribe", clip, "-o", nested.path, "--quiet"] + Self.english, environment: Self.environment)
        #expect(created == 0, "\(createdOutput)")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: nested)) as? [String: Any]
        #expect(json?["text"] is String, "the format of -o's extension")

        let blocker = folder.appendingPathComponent("a-file")
        try Data().write(to: blocker)
        let refused = blocker.appendingPathComponent("x.srt").path
        let (status, output) = try await OpenSpeechExecutable.run(["transcribe", clip, "-o", refused] + Self.english,
                                                                  environment: Self.environment)
        #expect(status != 0)
        #expect(output == "openspeech: cannot write \(refused): \(blocker.path) is a file, not a folder.\n", "\(output)")
    }

    @Test("Ctrl-C after the first of three files: exit 130, the first output whole, nothing half-written")
    func interruptedBatchKeepsWhatItFinished() async throws {
        try await TestEnvironment.ready()
        // The second file is four minutes of audio (seconds of work): the third, transcribed ahead, waits behind it,
        // so only the first is done when its output appears.
        let clips = try ["jfk", "ls-other-chapter-7902-96592", "1995-1837-0001"].map {
            try #require(Corpus.item($0)).wav16kURL.path
        }
        let folder = try makeTemporaryDirectory("openspeech-interrupted")
        defer { try? FileManager.default.removeItem(at: folder) }
        let log = folder.appendingPathComponent("log.txt")
        let out = folder.appendingPathComponent("out")
        let process = try OpenSpeechExecutable.start(
            ["transcribe"] + clips + ["--output-dir", out.path, "--format", "srt"] + Self.english,
            environment: Self.environment, output: log)
        let first = out.appendingPathComponent("jfk.srt")
        sendSignal(SIGINT, to: process.processIdentifier, whenFileExists: first.path)
        process.waitUntilExit()
        let messages = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        #expect(process.terminationStatus == 130, "\(messages)")
        #expect(messages.contains("openspeech: interrupted;"), "\(messages)")
        let written = try FileManager.default.contentsOfDirectory(atPath: out.path)
        #expect(written == ["jfk.srt"], "\(written)")
        let parsed = try await runCommand("python3", ["-c", """
            import pysrt, sys
            cues = pysrt.open(sys.argv[1], error_handling=pysrt.ERROR_RAISE)
            print(cues[-1].text.replace("\\n", " "))
            """, first.path])
        #expect(parsed.stdoutText.hasSuffix("country.\n"), "\(parsed.stdoutText)")
    }

    @Test("two files' SRT on stdout: one SubRip stream that pysrt reads, cues numbered on")
    func subtitlesOfTwoFilesOnStandardOutput() async throws {
        try await TestEnvironment.ready()
        let clips = try ["jfk", "1995-1837-0001"].map { try #require(Corpus.item($0)).wav16kURL.path }
        let folder = try makeTemporaryDirectory("openspeech-two-srt")
        defer { try? FileManager.default.removeItem(at: folder) }
        let (status, output) = try await OpenSpeechExecutable.run(
            ["transcribe"] + clips + ["--format", "srt", "--quiet"] + Self.english, environment: Self.environment)
        #expect(status == 0, "\(output)")
        let file = folder.appendingPathComponent("both.srt")
        try Data(output.utf8).write(to: file)
        let parsed = try await runCommand("python3", ["-c", """
            import pysrt, sys
            cues = pysrt.open(sys.argv[1], error_handling=pysrt.ERROR_RAISE)
            assert [cue.index for cue in cues] == list(range(1, len(cues) + 1)), [cue.index for cue in cues]
            restarts = sum(1 for a, b in zip(cues, cues[1:]) if b.start < a.start)
            print(len(cues), restarts)
            """, file.path])
        let counts = parsed.stdoutText.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        #expect(counts.count == 2 && counts[0] >= 4 && counts[1] == 1, "cues, and the second file's times from 0: \(parsed.stdoutText)")
    }

    @Test("models add of a multilingual Whisper folder: its 99 languages, read from the model")
    func addedMultilingualModel() async throws {
        let base = try await TestModels.directory(for: "whisper-base")
        let home = try makeTemporaryDirectory("openspeech-add-base")
        defer { try? FileManager.default.removeItem(at: home) }
        let (status, output) = try await OpenSpeechExecutable.run(["models", "add", base.path, "--id", "my-base"],
                                                                  environment: ["OPENSPEECH_HOME": home.path])
        #expect(status == 0, "\(output)")
        #expect(output.contains("99 languages"), "\(output)")
        let (_, list) = try await OpenSpeechExecutable.run(["models", "list"], environment: ["OPENSPEECH_HOME": home.path])
        #expect(list.split(separator: "\n").contains { $0.hasPrefix("my-base ") && $0.contains("99 languages") }, "\(list)")
    }

    @Test("--language French: the French clip in French, by whisper-base, which stderr names")
    func languageByName() async throws {
        try await TestEnvironment.ready()
        _ = try await TestModels.directory(for: "whisper-base")
        let clip = try #require(Corpus.item("pv-leopard-fr"))
        let (status, output) = try await OpenSpeechExecutable.run(
            ["transcribe", clip.wav16kURL.path, "--language", "French", "--no-download"], environment: Self.environment)
        #expect(status == 0, "\(output)")
        #expect(output.contains("openspeech: model whisper-base,") && !output.contains("detected"), "\(output)")
        let rate = WordErrorRate.score(reference: clip.transcript, hypothesis: Self.text(output), language: "fr").rate
        #expect(rate < 0.35, "WER \(rate): \(output)")
    }

    @Test("refused before any work, in a sentence with what to do: an unknown model, a negative count, a beam too wide, word highlights in SRT")
    func refusals() async throws {
        let clip = try #require(Corpus.item("jfk")).wav16kURL.path
        let (unknown, unknownOutput) = try await OpenSpeechExecutable.run(["transcribe", clip, "--model", "base"],
                                                                          environment: Self.environment)
        #expect(unknown != 0)
        #expect(unknownOutput.contains("whisper-base") && unknownOutput.contains("openspeech models list")
                && !unknownOutput.contains("detected") && !unknownOutput.contains("AssetInventory"), "\(unknownOutput)")
        #expect(unknownOutput.hasSuffix("\n") && unknownOutput.split(separator: "\n").count == 1, "\(unknownOutput)")

        let (threads, threadsOutput) = try await OpenSpeechExecutable.run(["transcribe", clip, "--threads", "-1"],
                                                                          environment: Self.environment)
        #expect(threads != 0 && threadsOutput.contains("--threads must be from 1 to 1024"), "\(threadsOutput)")

        for command in ["transcribe", "serve"] {
            let (beam, beamOutput) = try await OpenSpeechExecutable.run(
                [command] + (command == "transcribe" ? [clip] : []) + ["--beam-size", "17"], environment: Self.environment)
            #expect(beam != 0 && beamOutput.contains("--beam-size must be from 1 to 16, not 17"), "\(beamOutput)")
        }

        let (highlight, highlightOutput) = try await OpenSpeechExecutable.run(
            ["transcribe", clip, "-o", "x.srt", "--highlight-words"], environment: Self.environment)
        #expect(highlight != 0 && highlightOutput.contains("WebVTT"), "\(highlightOutput)")
    }
}
