import Foundation
import OpenSpeech
import SpeechEvaluation
import Testing
import TestSupport

/// `openspeech listen` on a real (virtual) microphone and `openspeech transcribe -` on a pipe, run as users run them.
@Suite(.serialized) struct ListenCommandTests {
    struct Record: Decodable {
        struct Word: Decodable { var word: String; var start: Double; var end: Double }
        var text: String
        var isFinal: Bool
        var start: Double
        var end: Double
        var words: [Word]
    }

    /// The JSON Lines records in a run's output (stderr lines are not JSON and are skipped).
    static func records(_ output: String) -> [Record] {
        output.split(separator: "\n").compactMap { line in
            guard line.hasPrefix("{") else { return nil }
            return try? JSONDecoder().decode(Record.self, from: Data(line.utf8))
        }
    }

    static func waitForExit(_ process: Process, within limit: Duration) async throws -> Bool {
        let deadline = ContinuousClock.now + limit
        while process.isRunning, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        return !process.isRunning
    }

    static func text(_ url: URL) -> String { (try? String(contentsOf: url, encoding: .utf8)) ?? "" }

    /// The lines of `url` with when each was first seen, polled every 20 ms until the task is cancelled.
    static func timedLines(of url: URL) -> Task<[(at: ContinuousClock.Instant, line: String)], Never> {
        Task {
            var lines: [(at: ContinuousClock.Instant, line: String)] = []
            while !Task.isCancelled {
                let complete = Self.text(url).split(separator: "\n", omittingEmptySubsequences: false).dropLast()
                for line in complete.dropFirst(lines.count) { lines.append((ContinuousClock.now, String(line))) }
                try? await Task.sleep(for: .milliseconds(20))
            }
            return lines
        }
    }

    /// Seconds from a clip's start to its first sound: the first 20 ms whose level reaches a tenth of the loudest's.
    static func soundOnset(_ samples: [Float], rate: Int) -> Double {
        let frame = rate / 50
        let levels = stride(from: 0, to: samples.count - frame, by: frame).map { start in
            samples[start..<(start + frame)].reduce(0) { $0 + $1 * $1 }
        }
        let loudest = levels.max() ?? 0
        return Double(levels.firstIndex { $0 >= loudest / 100 } ?? 0) / 50  // a tenth in level: a hundredth in power
    }

    @Test("listen as typed (no language, an English environment): the clip's words as finals in order with monotone times, first words and finals in time; Ctrl-C exits 0")
    func listensToTheMicrophone() async throws {
        try await TestEnvironment.ready()
        _ = try await TestModels.directory(for: "whisper-base")  // checks the environment's language on the side
        let clip = try #require(Corpus.item("1995-1837-0001"))
        try await withPulseAudio { daemon in
            let folder = try makeTemporaryDirectory("openspeech-listen")
            defer { try? FileManager.default.removeItem(at: folder) }
            let log = folder.appendingPathComponent("out.txt"), finalsFile = folder.appendingPathComponent("finals.txt")
            let environment = daemon.environment.merging(["OPENSPEECH_HOME": TestModels.home.path, "LANG": "en_US.UTF-8",
                                                          "LC_ALL": "", "LC_MESSAGES": ""]) { $1 }
            let process = try OpenSpeechExecutable.start(["listen", "--format", "jsonl", "--output", finalsFile.path],
                                                         environment: environment, output: log)
            defer { if process.isRunning { process.terminate() } }
            let ready = ContinuousClock.now + .seconds(60)
            while !Self.text(log).contains("listening"), process.isRunning, ContinuousClock.now < ready {
                try await Task.sleep(for: .milliseconds(50))
            }
            try #require(Self.text(log).contains("listening"), "\(Self.text(log))")
            let lines = Self.timedLines(of: log)
            let audio = try MonoAudio.load(contentsOf: clip.wav16kURL, sampleRate: 48_000)
            let played = ContinuousClock.now  // the sound starts here or later (the player's buffer)
            try await daemon.play(audio, rate: 48_000)
            let ended = ContinuousClock.now  // the player has drained: the sound ended by now
            try await Task.sleep(for: .seconds(4))  // finals come at the pause, not at Ctrl-C
            kill(process.processIdentifier, SIGINT)
            // Finalizing decodes what is still volatile: seconds on a quiet machine, much more under the full suite's load.
            #expect(try await Self.waitForExit(process, within: .seconds(120)), "exits after Ctrl-C")
            #expect(process.terminationStatus == 0, "\(Self.text(log))")
            lines.cancel()
            let timed = await lines.value

            let records = Self.records(Self.text(log))
            let finals = records.filter(\.isFinal).filter { !$0.text.isEmpty }
            #expect(records.contains { !$0.isFinal }, "volatile results while speaking")
            let heard = finals.map(\.text).joined(separator: " ")
            let rate = WordErrorRate.score(reference: clip.transcript, hypothesis: heard, language: "en").rate
            #expect(rate < 0.2, "WER \(rate): \(heard)")
            for (previous, next) in zip(finals, finals.dropFirst()) {
                #expect(next.start >= previous.end - 0.01, "finals in order: \(previous.text) | \(next.text)")
            }
            for record in finals {
                let starts = record.words.map(\.start)
                #expect(starts == starts.sorted(), "word times monotone in \(record.text)")
            }
            // The output file has every final, each on its own line.
            let saved = Self.text(finalsFile).split(separator: "\n").map(String.init)
            #expect(saved == finals.map(\.text))

            // Latency (issue 41's targets: first words 1.0 s after the speech begins, finals 1.5 s after it ends, as
            // medians, measured by bench/live): here twice that, from bounds that only overstate it.
            func words(_ text: String) -> [String] {
                text.lowercased().split(separator: " ").map { $0.filter(\.isLetter) }.filter { $0.count >= 3 }
            }
            let reference = clip.transcript.split(separator: " ").map(String.init)
            let opening = Set(words(reference.prefix(3).joined(separator: " ")))
            let closing = Set(words(reference.suffix(2).joined(separator: " ")))
            let onset = played + .seconds(Self.soundOnset(audio, rate: 48_000))
            let timedRecords = timed.compactMap { entry in
                Self.records(entry.line).first.map { (at: entry.at, record: $0) }
            }
            let first = timedRecords.first { !opening.isDisjoint(with: words($0.record.text)) }
            let last = timedRecords.first { $0.record.isFinal && !closing.isDisjoint(with: words($0.record.text)) }
            let firstWords = try #require(first, "no result with \(opening)").at - onset
            let final = try #require(last, "no final with \(closing)").at - ended
            #expect(firstWords < .seconds(2), "first words \(firstWords) after the speech began")
            #expect(final < .seconds(3), "final \(final) after the speech ended")
        }
    }

    @Test("listen with no options in an English environment: it starts in English, hears French, says so and switches; the finals are French")
    func switchesToTheSpokenLanguage() async throws {
        try await TestEnvironment.ready()
        _ = try await TestModels.directory(for: "whisper-base")
        let clip = try #require(Corpus.item("pv-leopard-fr"))
        try await withPulseAudio { daemon in
            let folder = try makeTemporaryDirectory("openspeech-listen-switch")
            defer { try? FileManager.default.removeItem(at: folder) }
            let log = folder.appendingPathComponent("out.txt")
            let environment = daemon.environment.merging(["OPENSPEECH_HOME": TestModels.home.path, "LANG": "en_US.UTF-8",
                                                          "LC_ALL": "", "LC_MESSAGES": ""]) { $1 }
            let process = try OpenSpeechExecutable.start(["listen", "--format", "jsonl"], environment: environment,
                                                         output: log)
            defer { if process.isRunning { process.terminate() } }
            let ready = ContinuousClock.now + .seconds(60)
            while !Self.text(log).contains("listening"), process.isRunning, ContinuousClock.now < ready {
                try await Task.sleep(for: .milliseconds(50))
            }
            try #require(Self.text(log).contains("listening"), "\(Self.text(log))")
            #expect(Self.text(log).contains("en_US, the environment's language, checked against the first speech"),
                    "\(Self.text(log))")
            try await daemon.play(try MonoAudio.load(contentsOf: clip.wav16kURL, sampleRate: 48_000), rate: 48_000)
            // The check runs every 2 s; the French transcription then hears the clip again from its start.
            let switched = ContinuousClock.now + .seconds(30)
            while !Self.text(log).contains("sounds French"), process.isRunning, ContinuousClock.now < switched {
                try await Task.sleep(for: .milliseconds(100))
            }
            try await Task.sleep(for: .seconds(3))
            kill(process.processIdentifier, SIGINT)
            #expect(try await Self.waitForExit(process, within: .seconds(120)), "exits after Ctrl-C")
            #expect(process.terminationStatus == 0, "\(Self.text(log))")
            let output = Self.text(log)
            #expect(output.contains("the speech sounds French"), "\(output)")
            // The finals after the switch are the clip's French words.
            let lines = output.split(separator: "\n")
            let after = lines.drop { !$0.contains("sounds French") }.joined(separator: "\n")
            let heard = Self.records(after).filter(\.isFinal).map(\.text).joined(separator: " ")
            let rate = WordErrorRate.score(reference: clip.transcript, hypothesis: heard, language: "fr").rate
            #expect(rate < 0.35, "WER \(rate): \(heard)")
        }
    }

    @Test("listen --list-devices lists the inputs and the default")
    func listsDevices() async throws {
        try await withPulseAudio { daemon in
            let (status, output) = try await OpenSpeechExecutable.run(["listen", "--list-devices"], environment: daemon.environment)
            #expect(status == 0)
            #expect(output.contains("virtual.monitor") && output.contains("(default)"), "\(output)")
        }
    }

    @Test("listen --device with no such input: a clear error naming the inputs there are, exit 1, at once")
    func noSuchDevice() async throws {
        try await withPulseAudio { daemon in
            let began = ContinuousClock.now
            let (status, output) = try await OpenSpeechExecutable.run(["listen", "--device", "no-such-mic"],
                                                                     environment: daemon.environment)
            #expect(status == 1)
            #expect(output.contains("No audio input named no-such-mic") && output.contains("virtual.monitor"), "\(output)")
            #expect(ContinuousClock.now - began < .seconds(10))
        }
    }

    @Test("listen with no sound server: a clear error, exit 1, no hang")
    func noServer() async throws {
        let folder = try makeTemporaryDirectory("openspeech-no-server")
        defer { try? FileManager.default.removeItem(at: folder) }
        let began = ContinuousClock.now
        let (status, output) = try await OpenSpeechExecutable.run(
            ["listen"], environment: ["PULSE_SERVER": "unix:\(folder.path)/nothing", "OPENSPEECH_HOME": TestModels.home.path])
        #expect(status == 1)
        #expect(output.contains("No sound server is reachable"), "\(output)")
        #expect(ContinuousClock.now - began < .seconds(10))
    }

    /// Runs `transcribe -` with `arguments`, writing `bytes` to its stdin in 0.25 s pieces at four times real time.
    static func transcribeStandardInput(_ bytes: Data, bytesPerSecond: Int, arguments: [String]) async throws -> (Int32, String) {
        try await runFeedingStandardInput(
            try #require(OpenSpeechExecutable.url), ["transcribe", "-", "--locale", "en-US", "--quiet"] + arguments,
            environment: ["OPENSPEECH_HOME": TestModels.home.path], bytes: bytes, piece: bytesPerSecond / 4,
            every: .milliseconds(62))
    }

    @Test("transcribe - --live reads a WAV stream from stdin as it arrives; JSON lines of live results")
    func transcribesWAVFromStandardInput() async throws {
        try await TestEnvironment.ready()
        let clip = try #require(Corpus.item("1995-1837-0001"))
        let (status, output) = try await Self.transcribeStandardInput(
            try Data(contentsOf: clip.wav16kURL), bytesPerSecond: 32_000, arguments: ["--live", "--format", "json"])
        #expect(status == 0, "\(output)")
        let heard = Self.records(output).filter(\.isFinal).map(\.text).joined(separator: " ")
        let rate = WordErrorRate.score(reference: clip.transcript, hypothesis: heard, language: "en").rate
        #expect(rate < 0.2, "WER \(rate): \(output)")
    }

    @Test("transcribe - reads raw 16-bit PCM from stdin at the rate given; text out")
    func transcribesRawFromStandardInput() async throws {
        try await TestEnvironment.ready()
        let clip = try #require(Corpus.item("1995-1837-0001"))
        // The clip at 8 kHz stereo, raw.
        let mono = try MonoAudio.load(contentsOf: clip.wav16kURL, sampleRate: 8_000)
        var raw = Data(capacity: mono.count * 4)
        for sample in mono {
            let value = Int16(max(-1, min(1, sample)) * 32_767).littleEndian
            withUnsafeBytes(of: value) { raw.append(contentsOf: $0); raw.append(contentsOf: $0) }
        }
        let (status, output) = try await Self.transcribeStandardInput(
            raw, bytesPerSecond: 32_000, arguments: ["--raw-sample-rate", "8000", "--raw-channels", "2"])
        #expect(status == 0, "\(output)")
        let rate = WordErrorRate.score(reference: clip.transcript, hypothesis: output, language: "en").rate
        #expect(rate < 0.25, "WER \(rate): \(output)")
    }
}
