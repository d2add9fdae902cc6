import Foundation
import OpenSpeech
import SpeechEvaluation
import Testing
import TestSupport

/// Who speaks when (issue 45), on a conversation built here from corpus utterances of three real speakers (two
/// LibriSpeech readers and LJ Speech's): turns of one to two utterances, pauses, one reply overlapping the end of the
/// turn before, a fixed order. `openspeech diarize` and `transcribe --diarize` as a user runs them, and the library.
@Suite(.serialized) struct DiarizationTests {
    static var environment: [String: String] { ["OPENSPEECH_HOME": TestModels.home.path] }

    /// A conversation: its audio, and who speaks when (each utterance placed, as reference turns).
    struct Conversation {
        var samples: [Float] = []
        var turns: [DiarizationErrorRate.Turn] = []
        var transcript: [String] = []
    }

    /// Turns in a fixed order: (speaker, utterances, pause before in seconds; negative: overlapping the turn before).
    static let script: [(speaker: String, utterances: [String], pause: Double)] = [
        ("A", ["4198-12281-0000"], 0), ("B", ["LJ001-0001"], 0.8), ("C", ["7018-75788-0001", "7018-75788-0002"], 0.6),
        ("A", ["4198-12281-0002"], 1.0), ("B", ["LJ001-0003"], -0.5), ("C", ["7018-75788-0004"], 0.7),
        ("B", ["LJ001-0004", "LJ001-0005"], 0.5), ("A", ["4198-12281-0003"], 0.9),
    ]

    static let conversation = build(script)

    /// Two speakers, B's first turn starting 1.5 s before A's ends (`conversation`'s 0.5 s overlap is mostly an
    /// utterance's trailing silence, which no model hears as a voice).
    static let overlapping = build([
        ("A", ["4198-12281-0000"], 0), ("B", ["LJ001-0001"], -1.5), ("A", ["4198-12281-0002"], 0.8), ("B", ["LJ001-0003"], 0.6),
    ])

    static func build(_ script: [(speaker: String, utterances: [String], pause: Double)]) -> Conversation {
        var conversation = Conversation()
        var end = 0
        for turn in script {
            for (index, id) in turn.utterances.enumerated() {
                let item = Corpus.item(id)!
                let audio = try! MonoAudio.load(contentsOf: item.wav16kURL)
                let pause = index == 0 ? turn.pause : 0.3
                let start = max(0, end + Int(pause * 16_000))
                if conversation.samples.count < start + audio.count {
                    conversation.samples += [Float](repeating: 0, count: start + audio.count - conversation.samples.count)
                }
                for (offset, sample) in audio.enumerated() { conversation.samples[start + offset] += sample }
                end = start + audio.count
                conversation.turns.append((Double(start) / 16_000, Double(end) / 16_000, turn.speaker))
                conversation.transcript.append(item.transcript)
            }
        }
        return conversation
    }

    static func write(_ samples: [Float], name: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID()).wav")
        let file = try AVAudioFile(forWriting: url, settings: [AVSampleRateKey: 16_000.0])
        try file.write(from: MonoAudio.buffer(samples.map { min(1, max(-1, $0)) }))
        try file.closeThrowing()
        return url
    }

    static func run(_ arguments: [String]) async throws -> CommandResult {
        let tool = try #require(OpenSpeechExecutable.url)
        return try await runCommand(tool.path, arguments, environment: environment, check: false)
    }

    @Test("openspeech diarize: three speakers found, turns within 8 % DER (0.25 s collar) of the conversation's")
    func diarizeCommand() async throws {
        try await TestEnvironment.ready()
        let url = try Self.write(Self.conversation.samples, name: "conversation")
        defer { try? FileManager.default.removeItem(at: url) }
        let result = try await Self.run(["diarize", url.path, "--format", "rttm"])
        #expect(result.status == 0, "\(result.stderr)")
        let hypothesis = DiarizationErrorRate.rttm(result.stdoutText)
        #expect(Set(hypothesis.map(\.speaker)).count == 3, "\(result.stdoutText)")
        let score = DiarizationErrorRate(reference: Self.conversation.turns, hypothesis: hypothesis)
        #expect(score.value < 0.08, "DER \(score.value): miss \(score.miss), false alarm \(score.falseAlarm), confusion \(score.confusion)")

        // Told the count: two speakers exactly; more than the speech holds: as many as it does, and said on stderr.
        let two = try await Self.run(["diarize", url.path, "--format", "json", "--speakers", "2"])
        let object = try #require(try JSONSerialization.jsonObject(with: two.stdout) as? [String: Any])
        #expect((object["speakers"] as? [String])?.count == 2, "\(two.stdoutText)")
    }

    @Test("transcribe --diarize: every format labels who speaks; words and segments of each utterance get its speaker")
    func transcribeDiarized() async throws {
        try await TestEnvironment.ready()
        let url = try Self.write(Self.conversation.samples, name: "conversation")
        let folder = try makeTemporaryDirectory("openspeech-diarized")
        defer {
            try? FileManager.default.removeItem(at: url)
            try? FileManager.default.removeItem(at: folder)
        }
        let result = try await Self.run(["transcribe", url.path, "--diarize", "--language", "english", "--format", "all",
                                         "--word-timestamps", "--output-dir", folder.path])
        #expect(result.status == 0, "\(result.stderr)")
        let name = url.deletingPathExtension().lastPathComponent
        func output(_ suffix: String) throws -> String {
            try String(contentsOf: folder.appendingPathComponent("\(name).\(suffix)"), encoding: .utf8)
        }
        let json = try #require(try JSONSerialization.jsonObject(with: Data(try output("json").utf8)) as? [String: Any])
        let text = try #require(json["text"] as? String)
        let wer = WordErrorRate.score(reference: Self.conversation.transcript.joined(separator: " "), hypothesis: text, language: "en")
        #expect(wer.rate < 0.12, "WER \(wer.rate): \(text)")
        let segments = try #require(json["segments"] as? [[String: Any]])
        let speakers = segments.compactMap { $0["speaker"] as? String }
        #expect(speakers.count == segments.count, "every segment has a speaker")
        #expect(Set(speakers).count == 3, "\(speakers)")

        // Each reference utterance: its words (by their middle) mostly carry one label, a label per real speaker.
        let words = try #require(json["words"] as? [[String: Any]])
        var labelsOf: [String: [String: Int]] = [:]
        for word in words {
            guard let start = word["start"] as? Double, let end = word["end"] as? Double, let speaker = word["speaker"] as? String
            else { Issue.record("a word without times or speaker: \(word)"); continue }
            let middle = (start + end) / 2
            guard let turn = Self.conversation.turns.first(where: { $0.start <= middle && middle <= $0.end }) else { continue }
            labelsOf[turn.speaker, default: [:]][speaker, default: 0] += 1
        }
        var assigned: [String: String] = [:]
        for (truth, counts) in labelsOf {
            let total = counts.values.reduce(0, +)
            let (label, count) = try #require(counts.max { $0.value < $1.value })
            #expect(Double(count) / Double(total) > 0.9, "speaker \(truth)'s words: \(counts)")
            assigned[truth] = label
        }
        #expect(Set(assigned.values).count == 3, "each real speaker a label of their own: \(assigned)")

        let vtt = try output("vtt")
        for label in Set(speakers) { #expect(vtt.contains("<v \(label)>"), "WebVTT voice tags") }
        let srt = try output("srt")
        #expect(srt.contains("[Speaker 1] ") && srt.contains("[Speaker 2] "), "SubRip marks speaker changes")
        let tsv = try output("tsv")
        #expect(tsv.hasPrefix("start\tend\tspeaker\ttext\n"))
        let plain = try output("txt")
        #expect(plain.hasPrefix("Speaker 1\n"), "\(plain.prefix(80))")
    }

    @Test("where B's reply starts 1.5 s before A's turn ends, both are reported speaking (overlapping speech kept)")
    func overlapKept() async throws {
        let diarizer = SpeakerDiarizer(store: TestModels.store)
        try await diarizer.installModels()
        let conversation = Self.overlapping
        let result = try await diarizer.diarize(samples: conversation.samples)
        #expect(result.speakers.count == 2, "\(result.turns)")
        let (start, end) = (conversation.turns[1].start, conversation.turns[0].end)
        func speakers(at time: Double) -> Set<String> {
            Set(result.turns.filter { $0.start <= time && time < $0.end }.map(\.speaker))
        }
        // Both speakers, over at least 0.4 s of the 1.5 s (every 10 ms): the model hears A's quieter last words under
        // B for about 0.65 s; one speaker at a time (before the change) is none.
        let both = Set(result.speakers)
        let instants = stride(from: start, to: end, by: 0.01).filter { speakers(at: $0) == both }
        #expect(Double(instants.count) * 0.01 >= 0.4, "two speakers over \(instants.count) × 10 ms of \(start)–\(end): \(result.turns)")
        // One at a time elsewhere: none outside the overlap, give or take 0.5 s.
        let elsewhere = stride(from: 0, to: Double(conversation.samples.count) / 16_000, by: 0.01)
            .filter { ($0 < start - 0.5 || $0 > end + 0.5) && speakers(at: $0).count > 1 }
        #expect(elsewhere.isEmpty, "two speakers at \(elsewhere.first ?? 0) s and \(elsewhere.count - 1) more instants: \(result.turns)")
    }

    @Test("too little speech for several speakers is one speaker; silence is none; both without error")
    func littleSpeech() async throws {
        try await TestEnvironment.ready()
        let jfk = try #require(Corpus.item("jfk"))
        let diarizer = SpeakerDiarizer(options: .init(speakers: 3), store: TestModels.store)
        try await diarizer.installModels()
        let short = try await diarizer.diarize(samples: Array(try MonoAudio.load(contentsOf: jfk.wav16kURL).prefix(40_000)))
        #expect(short.speakers.count == 1)
        #expect(short.notice?.contains("3 speakers were asked for") == true, "\(String(describing: short.notice))")
        let silence = try await SpeakerDiarizer(store: TestModels.store).diarize(samples: [Float](repeating: 0, count: 80_000))
        #expect(silence.turns.isEmpty && silence.speakers.isEmpty)
    }

    @Test("openspeech diarize - reads a WAV stream from stdin: one speaker's turns, as from the file")
    func diarizeStandardInput() async throws {
        try await TestEnvironment.ready()
        let jfk = try #require(Corpus.item("jfk")).wav16kURL
        let (status, output) = try await runFeedingStandardInput(
            try #require(OpenSpeechExecutable.url), ["diarize", "-", "--format", "rttm"], environment: Self.environment,
            bytes: try Data(contentsOf: jfk), piece: 64_000, every: .milliseconds(10))
        #expect(status == 0, "\(output)")
        let fromFile = try await Self.run(["diarize", jfk.path, "--format", "rttm"])
        let turns = DiarizationErrorRate.rttm(output), expected = DiarizationErrorRate.rttm(fromFile.stdoutText)
        #expect(!turns.isEmpty && Set(turns.map(\.speaker)).count == 1, "\(output)")
        #expect(turns.map(\.start) == expected.map(\.start) && turns.map(\.end) == expected.map(\.end), "\(output) / \(fromFile.stdoutText)")
    }

    @Test("refused before any work, with a sentence: impossible speaker counts, counts without --diarize, a minimum count live")
    func refusals() async throws {
        try await TestEnvironment.ready()
        let jfk = try #require(Corpus.item("jfk")).wav16kURL.path
        for (arguments, sentence) in [
            (["diarize", jfk, "--speakers", "0"], "must be between 1 and 100"),
            (["diarize", jfk, "--min-speakers", "3", "--max-speakers", "2"], "is more than the maximum"),
            (["transcribe", jfk, "--speakers", "2"], "go with --diarize"),
            (["transcribe", "-", "--live", "--diarize", "--min-speakers", "2"], "--min-speakers is for files"),
            (["listen", "--diarize", "--min-speakers", "2"], "--min-speakers is for files"),
        ] {
            let result = try await Self.run(arguments)
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains(sentence), "\(arguments): \(result.stderr)")
        }
    }
}
