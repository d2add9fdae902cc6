import Foundation
import OpenSpeech
import SpeechEvaluation
import Testing
import TestSupport

/// `openspeech transcribe`'s documents as users take them: subtitles within their limits, parsed by FFmpeg and by
/// a subtitle library from the Python index; every format of `--format all`; OpenAI's `verbose_json` fields;
/// `--version`. tiny.en at beam 1: the tests are about the documents, not the words.
@Suite(.serialized) struct SubtitleOutputTests {
    static var environment: [String: String] { ["OPENSPEECH_HOME": TestModels.home.path] }

    /// The corpus-style word error rate of `text` against `reference`.
    static func wordErrorRate(_ text: String, _ reference: String) -> Double {
        WordErrorRate.score(reference: reference, hypothesis: text, language: "en").rate
    }
    static let fast = ["--locale", "en-US", "--model", "whisper-tiny.en", "--beam-size", "1", "--no-download", "--quiet"]

    /// A cue read back from a document: times, lines (unescaped).
    struct Cue {
        var start: Double
        var end: Double
        var lines: [String]
    }

    /// The cues of an SRT or WebVTT document; fails the test on a block that is not a cue.
    static func parse(_ document: String, vtt: Bool) -> [Cue] {
        var blocks = document.components(separatedBy: "\n\n").filter { !$0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty }
        if vtt {
            #expect(blocks.first == "WEBVTT")
            blocks.removeFirst()
        }
        return blocks.compactMap { block in
            var lines = block.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            if lines.last == "" { lines.removeLast() }
            if !vtt {
                #expect(Int(lines.first ?? "") != nil, "\(block)")
                lines.removeFirst()
            }
            let times = lines.removeFirst().components(separatedBy: " --> ")
            guard times.count == 2, let start = seconds(times[0]), let end = seconds(times[1]) else {
                Issue.record("not a cue: \(block)")
                return nil
            }
            let text = lines.map { line in
                line.replacingOccurrences(of: #"<\d\d:\d\d:\d\d\.\d\d\d>"#, with: "", options: .regularExpression)
                    .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
                    .replacingOccurrences(of: "&amp;", with: "&")
            }
            return Cue(start: start, end: end, lines: text)
        }
    }

    /// `HH:MM:SS,mmm` or `HH:MM:SS.mmm` in seconds.
    static func seconds(_ clock: String) -> Double? {
        let parts = clock.replacingOccurrences(of: ",", with: ".").split(separator: ":")
        guard parts.count == 3, let h = Double(parts[0]), let m = Double(parts[1]), let s = Double(parts[2]) else { return nil }
        return h * 3600 + m * 60 + s
    }

    /// The verbose JSON document of a file.
    static func json(_ url: URL) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
    }

    /// Checks a subtitle document against the issue's limits and the transcript's words; returns its cues.
    @discardableResult
    static func checkSubtitles(_ cues: [Cue], words: [[String: Any]], name: String) -> [Cue] {
        // Every word token (a word may hold none or several space-separated tokens) and the word it belongs to.
        let tokens: [(text: String, word: Int)] = words.enumerated().flatMap { index, word in
            ((word["word"] as? String) ?? "").split(separator: " ").map { (String($0), index) }
        }
        var next = 0
        var previousEnd = -1.0
        for cue in cues {
            #expect(cue.lines.count <= 2 && !cue.lines.isEmpty, "\(name): \(cue.lines)")
            for line in cue.lines {
                #expect(line.count <= 42 || !line.contains(" "), "\(name): \(line.count) characters: \(line)")
            }
            #expect(cue.end >= cue.start, "\(name): \(cue)")
            #expect(cue.start >= previousEnd + 0.08 - 0.0015, "\(name): cue at \(cue.start) after one ending \(previousEnd)")
            previousEnd = cue.end
            let cueTokens = cue.lines.flatMap { $0.split(separator: " ").map(String.init) }
            guard next + cueTokens.count <= tokens.count else {
                Issue.record("\(name): cues have more words than the transcript")
                return cues
            }
            let mine = tokens[next..<(next + cueTokens.count)]
            #expect(mine.map(\.text) == cueTokens, "\(name): cue words \(cueTokens) differ from \(mine.map(\.text))")
            let first = words[mine.first!.word], last = words[mine.last!.word]
            let firstStart = first["start"] as? Double ?? .nan, lastEnd = last["end"] as? Double ?? .nan
            #expect(cue.start >= firstStart - 0.0015 && cue.end <= lastEnd + 0.0015,
                    "\(name): cue \(cue.start)–\(cue.end) outside its words' \(firstStart)–\(lastEnd)")
            let multiWord = cueTokens.count > 1
            #expect(!multiWord || lastEnd - firstStart <= 7.0015, "\(name): \(lastEnd - firstStart) s: \(cue.lines)")
            next += cueTokens.count
        }
        #expect(next == tokens.count, "\(name): \(tokens.count - next) words of the transcript in no cue")
        return cues
    }

    @Test("the long-form item and every English clip: SRT and WebVTT within the limits, with the transcript's words; FFmpeg and pysrt/webvtt-py read them; --format all writes every format")
    func corpusSubtitles() async throws {
        try await TestEnvironment.ready()
        _ = try await TestModels.directory(for: "silero-vad")
        let items = Corpus.items.filter { $0.language == "en" && $0.subset != "multilingual" }
        let longForm = try #require(Corpus.items.first { $0.subset == "longform" })
        #expect(items.contains(longForm) && items.count >= 70)
        let folder = try makeTemporaryDirectory("openspeech-subtitles")
        defer { try? FileManager.default.removeItem(at: folder) }

        let started = Date()
        let (status, output) = try await OpenSpeechExecutable.run(
            ["transcribe", "--format", "all", "--word-timestamps", "--output-dir", folder.path] + Self.fast
                + items.map(\.wav16kURL.path),
            environment: Self.environment)
        #expect(status == 0, "\(output)")
        print("SubtitleOutputTests: \(items.count) files, \(String(format: "%.0f", Date().timeIntervalSince(started))) s")

        var cueCounts: [String: Int] = [:]
        for item in items {
            let base = folder.appendingPathComponent(item.id)
            for ext in ["txt", "srt", "vtt", "json", "tsv"] {
                #expect(FileManager.default.fileExists(atPath: base.appendingPathExtension(ext).path), "\(item.id).\(ext)")
            }
            let json = try Self.json(base.appendingPathExtension("json"))
            let words = try #require(json["words"] as? [[String: Any]], "\(item.id): no words")
            let text = try String(contentsOf: base.appendingPathExtension("txt"), encoding: .utf8)
            #expect(text.trimmingCharacters(in: .whitespacesAndNewlines) == json["text"] as? String)
            let srt = Self.checkSubtitles(Self.parse(try String(contentsOf: base.appendingPathExtension("srt"), encoding: .utf8), vtt: false),
                                          words: words, name: "\(item.id).srt")
            let vtt = Self.checkSubtitles(Self.parse(try String(contentsOf: base.appendingPathExtension("vtt"), encoding: .utf8), vtt: true),
                                          words: words, name: "\(item.id).vtt")
            #expect(srt.count == vtt.count && (!srt.isEmpty || words.isEmpty), "\(item.id)")
            cueCounts[item.id] = srt.count
            for ext in ["srt", "vtt"] {
                let result = try await runCommand("ffmpeg", ["-v", "error", "-i", base.appendingPathExtension(ext).path, "-f", "ass",
                                                       "-y", "/dev/null"], check: false)
                #expect(result.status == 0, "ffmpeg rejects \(item.id).\(ext): \(result.stderr)")
            }
            // TSV: whisper's header, then a row of integer milliseconds per segment.
            let tsv = try String(contentsOf: base.appendingPathExtension("tsv"), encoding: .utf8).split(separator: "\n")
            #expect(tsv.first == "start\tend\ttext")
            #expect(tsv.count - 1 == (json["segments"] as? [Any])?.count, "\(item.id)")
            for row in tsv.dropFirst() {
                let fields = row.split(separator: "\t", maxSplits: 2)
                #expect(fields.count == 3 && Int(fields[0]) != nil && Int(fields[1])! >= Int(fields[0])!, "\(row)")
            }
        }

        // A subtitle library from the Python index reads the same cues.
        let script = """
            import json, pathlib, sys, pysrt, webvtt
            counts = {}
            for path in sorted(pathlib.Path(sys.argv[1]).glob("*.srt")):
                srt = pysrt.open(str(path), error_handling=pysrt.ERROR_RAISE)
                vtt = webvtt.read(str(path.with_suffix(".vtt")))
                assert len(srt) == len(vtt), path
                counts[path.stem] = len(srt)
            print(json.dumps(counts))
            """
        let parsed = try await runCommand("python3", ["-c", script, folder.path])
        let counts = try #require(try JSONSerialization.jsonObject(with: parsed.stdout) as? [String: Int])
        for item in items {
            #expect(counts[item.id] == cueCounts[item.id], "\(item.id): Python reads \(counts[item.id] ?? -1) cues, we wrote \(cueCounts[item.id] ?? -1)")
        }

        // The long-form item: how often each limit shapes a cue (BENCHMARKS.md).
        let longBase = folder.appendingPathComponent(longForm.id)
        let cues = Self.parse(try String(contentsOf: longBase.appendingPathExtension("srt"), encoding: .utf8), vtt: false)
        let share = { (count: Int) in String(format: "%.0f %%", Double(count) / Double(cues.count) * 100) }
        let twoLines = cues.filter { $0.lines.count == 2 }.count
        let fullLine = cues.filter { $0.lines.contains { $0.count >= 38 } }.count
        let long = cues.filter { $0.end - $0.start >= 6 }.count
        let lastWords = cues.compactMap { $0.lines.last?.split(separator: " ").last }
        let sentence = lastWords.filter { ".?!".contains($0.last ?? " ") }.count
        let clause = lastWords.filter { ",;:".contains($0.last ?? " ") }.count
        let characters = cues.map { $0.lines.joined(separator: " ").count }.reduce(0, +) / max(cues.count, 1)
        print("SubtitleOutputTests: long-form \(cues.count) cues, \(characters) characters each on average; two lines: \(share(twoLines)); "
              + "a line of 38-42 characters: \(share(fullLine)); 6-7 s: \(share(long)); ending a sentence: \(share(sentence)); "
              + "at clause punctuation: \(share(clause)); elsewhere (a pause or the limits): \(share(cues.count - sentence - clause))")
    }

    @Test("json is OpenAI's verbose_json: language, duration, text, segments with the decoder's statistics, words (--word-timestamps), model")
    func verboseJSON() async throws {
        try await TestEnvironment.ready()
        let clip = try #require(Corpus.item("jfk"))
        let folder = try makeTemporaryDirectory("openspeech-json")
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("out.json")
        let (status, output) = try await OpenSpeechExecutable.run(
            ["transcribe", clip.originalURL.path, "--word-timestamps", "-o", file.path] + Self.fast,
            environment: Self.environment)
        #expect(status == 0, "\(output)")
        let json = try Self.json(file)
        #expect(json["task"] as? String == "transcribe")
        #expect(json["model"] as? String == "whisper-tiny.en")
        #expect(json["language"] as? String == "english")
        #expect(abs((json["duration"] as? Double ?? 0) - clip.durationSeconds) < 0.1)
        let text = try #require(json["text"] as? String)
        #expect(Self.wordErrorRate(text, clip.transcript) <= 0.15, "\(text)")
        let segments = try #require(json["segments"] as? [[String: Any]])
        #expect(!segments.isEmpty)
        for (index, segment) in segments.enumerated() {
            #expect(segment["id"] as? Int == index)
            for key in ["start", "end", "avg_logprob", "compression_ratio", "no_speech_prob", "temperature"] {
                #expect(segment[key] is Double, "\(key) in \(segment)")
            }
            #expect(segment["seek"] is Int && segment["text"] is String)
            let tokens = try #require(segment["tokens"] as? [Int])
            #expect(!tokens.isEmpty && tokens.allSatisfy { $0 >= 0 }, "\(segment)")
            #expect((segment["avg_logprob"] as? Double ?? 1) <= 0)
            #expect((0...1).contains(segment["no_speech_prob"] as? Double ?? -1))
            #expect(segment["temperature"] as? Double == 0, "greedy, without fallback on clear speech")
        }
        let words = try #require(json["words"] as? [[String: Any]])
        #expect(Self.wordErrorRate(words.compactMap { $0["word"] as? String }.joined(separator: " "), text) == 0)
    }

    @Test("-o FILE with --max-line-width 0: one cue per segment; --highlight-words: WebVTT word tags FFmpeg reads; options parse")
    func optionsAndWholeSegments() async throws {
        try await TestEnvironment.ready()
        let clip = try #require(Corpus.item("jfk"))
        let folder = try makeTemporaryDirectory("openspeech-options")
        defer { try? FileManager.default.removeItem(at: folder) }
        let base = folder.appendingPathComponent("jfk")
        let (status, output) = try await OpenSpeechExecutable.run(
            ["transcribe", clip.originalURL.path, "--format", "all", "-o", base.appendingPathExtension("srt").path,
             "--max-line-width", "0", "--prompt", "President Kennedy's inaugural address.", "--temperature", "0",
             "--temperature-increment-on-fallback", "0", "--threads", "1", "--verbose"] + Self.fast,
            environment: Self.environment)
        #expect(status == 0, "\(output)")
        #expect(output.contains("OpenSpeech ") && output.contains("segments"), "--verbose logs: \(output)")
        let json = try Self.json(base.appendingPathExtension("json"))
        let segments = try #require(json["segments"] as? [[String: Any]])
        let srt = Self.parse(try String(contentsOf: base.appendingPathExtension("srt"), encoding: .utf8), vtt: false)
        #expect(srt.count == segments.count)
        #expect(srt.map { $0.lines.joined(separator: " ") } == segments.compactMap { $0["text"] as? String })
        #expect(Self.wordErrorRate(json["text"] as? String ?? "", clip.transcript) <= 0.15)

        let vttFile = folder.appendingPathComponent("words.vtt")
        let (vttStatus, vttOutput) = try await OpenSpeechExecutable.run(
            ["transcribe", clip.originalURL.path, "--format", "vtt", "--highlight-words", "-o", vttFile.path] + Self.fast,
            environment: Self.environment)
        #expect(vttStatus == 0, "\(vttOutput)")
        let vtt = try String(contentsOf: vttFile, encoding: .utf8)
        #expect(vtt.contains(try Regex(#"\w <\d\d:\d\d:\d\d\.\d\d\d>\w"#)), "\(vtt)")
        let ffmpeg = try await runCommand("ffmpeg", ["-v", "error", "-i", vttFile.path, "-f", "ass", "-y", "/dev/null"], check: false)
        #expect(ffmpeg.status == 0, "\(ffmpeg.stderr)")

        let (badStatus, badOutput) = try await OpenSpeechExecutable.run(
            ["transcribe", clip.originalURL.path, clip.originalURL.path, "-o", vttFile.path], environment: Self.environment)
        #expect(badStatus != 0 && badOutput.contains("single input"), "\(badOutput)")
    }

    @Test("--version prints the version and the engine's instruction set, and exits 0")
    func version() async throws {
        let (status, output) = try await OpenSpeechExecutable.run(["--version"], environment: [:])
        #expect(status == 0, "\(output)")
        #expect(output.hasPrefix("OpenSpeech \(BuildInfo.version) — engine: "), "\(output)")
        #expect(output.split(separator: "\n").count == 1, "one line: \(output)")
    }
}
