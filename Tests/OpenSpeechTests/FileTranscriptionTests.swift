import Foundation
@testable import OpenSpeech
@testable import SpeechEngine
import SpeechAudio
import SpeechEvaluation
import Testing
import TestSupport

/// File transcription users can trust: every word of long recordings, the same text whatever the buffers and their
/// pace, a speech detector that does not cost accuracy.
@Suite(.serialized) struct FileTranscriptionTests {
    /// Final results as (text, start, end) in samples: what must not change between runs.
    struct Final: Equatable, CustomStringConvertible {
        var text: String
        var start: Int64
        var end: Int64
        var description: String { "[\(start)–\(end)] \(text)" }
    }

    /// Runs `samples` through a final-only transcriber (beside a detector with `vad`) in buffers of random sizes
    /// (1 ms to 10 s) at a random pace from `seed`, or in one buffer when `seed` is nil.
    static func finals(_ samples: [Float], vad: Bool, seed: UInt64?) async throws -> [Final] {
        let transcriber = SpeechTranscriber(locale: TestEnvironment.english, transcriptionOptions: [], reportingOptions: [],
                                            attributeOptions: [.audioTimeRange])
        let detector = vad ? SpeechDetector(detectionOptions: .init(sensitivityLevel: .medium), reportResults: false) : nil
        let analyzer = SpeechAnalyzer(modules: [transcriber] + (detector.map { [$0] } ?? []))
        let collector = Task { try await transcriber.results.reduce(into: [SpeechTranscriber.Result]()) { $0.append($1) } }
        var sizes: [Int] = []
        if let seed {
            var generator = SeededGenerator(seed: seed)
            var total = 0
            while total < samples.count {
                let size = min(Int.random(in: 16...160_000, using: &generator), samples.count - total)
                sizes.append(size)
                total += size
            }
        } else {
            sizes = [samples.count]
        }
        let pauses = seed.map { seed in
            var generator = SeededGenerator(seed: seed &+ 1)
            return sizes.map { _ in Int.random(in: 0...3, using: &generator) }
        } ?? sizes.map { _ in 0 }
        let (stream, continuation) = AsyncStream<AnalyzerInput>.makeStream()
        let feeder = Task {
            var start = 0
            for (size, pause) in zip(sizes, pauses) {
                let buffer = AVAudioPCMBuffer(pcmFormat: MonoAudio.format(), frameCapacity: AVAudioFrameCount(size))!
                samples.withUnsafeBufferPointer { buffer.floatChannelData![0].update(from: $0.baseAddress! + start, count: size) }
                buffer.frameLength = AVAudioFrameCount(size)
                continuation.yield(AnalyzerInput(buffer: buffer))
                start += size
                if pause > 0 { try? await Task.sleep(for: .milliseconds(pause)) }
            }
            continuation.finish()
        }
        _ = try await analyzer.analyzeSequence(stream)
        await feeder.value
        try await analyzer.finalizeAndFinishThroughEndOfInput()
        return try await collector.value.filter(\.isFinal).map {
            Final(text: String($0.text.characters), start: $0.range.start.value, end: $0.range.end.value)
        }
    }

    @Test("the same final text and times whatever the buffer sizes and pace, with and without a detector",
          arguments: [false, true])
    func independentOfBuffers(vad: Bool) async throws {
        try await GatingAudio.ready()
        // 80 s: the long-form chapter's start (several 30 s windows), then clips after pauses of 1.5 s and 12 s.
        let chapter = try MonoAudio.load(contentsOf: try #require(Corpus.item("ls-other-chapter-7902-96592")).wav16kURL)
        var samples = Array(chapter.prefix(50 * 16_000))
        for (id, pause) in [("1995-1837-0001", 1.5), ("jfk", 12.0)] {
            samples += [Float](repeating: 0, count: Int(pause * 16_000))
            samples += try MonoAudio.load(contentsOf: try #require(Corpus.item(id)).wav16kURL)
        }
        let reference = try await Self.finals(samples, vad: vad, seed: nil)
        #expect(reference.count > 5)
        for seed: UInt64 in [1, 2, 3] {
            let run = try await Self.finals(samples, vad: vad, seed: seed)
            #expect(run == reference, "seed \(seed):\n\(run)\nvs\n\(reference)")
        }
    }

    @Test("every word of the long-form chapter: WER within 0.5 of the engine's own long-form run, no stretch lost",
          arguments: [false, true])
    func longFormAccountsForEveryWord(vad: Bool) async throws {
        try await GatingAudio.ready()
        let item = try #require(Corpus.item("ls-other-chapter-7902-96592"))
        let samples = try MonoAudio.load(contentsOf: item.wav16kURL)
        let engine = try await Self.engineText(samples, beamSize: 5)
        let transcriber = FileTranscriber(options: .init(locale: TestEnvironment.english, detectsSpeech: vad),
                                          store: TestModels.store)
        let text = try await transcriber.transcribe(contentsOf: item.originalURL).text
        // With the detector the default is int8; without VNNI its encoder weights have 7 bits
        // (`PackedMatrix.saturatesPairs`): 8.81 % against the engine's float32 7.42 % on a Zen 3 EPYC.
        let int8Bound = MatrixBackend.hasVNNI ? 1.0 : 1.5
        try Self.expectAccounted(text, engine: engine, reference: item.transcript, bound: vad ? int8Bound : 0.5)
    }

    @Test("a 20-minute recording of corpus clips and pauses, greedy, with and without a detector: every word accounted for")
    func twentyMinutes() async throws {
        try await GatingAudio.ready()
        // English clips after pauses of 0.3 to 8 s, the set over again until 20 minutes.
        let clips = Corpus.items.filter { $0.language == "en" && $0.subset != "longform" }
        var samples: [Float] = [], reference: [String] = []
        var index = 0
        while samples.count < 20 * 60 * 16_000 {
            let clip = clips[index % clips.count]
            samples += [Float](repeating: 0, count: [4_800, 32_000, 128_000, 9_600, 64_000][index % 5])
            samples += try MonoAudio.load(contentsOf: clip.wav16kURL)
            reference.append(clip.transcript)
            index += 1
        }
        let engine = try await Self.engineText(samples, beamSize: 1)
        for vad in [false, true] {
            let transcriber = FileTranscriber(options: .init(locale: TestEnvironment.english, beamSize: 1, detectsSpeech: vad),
                                              store: TestModels.store)
            let text = try await transcriber.transcribe(samples: samples).text
            try Self.expectAccounted(text, engine: engine, reference: reference.joined(separator: " "), bound: vad ? 1.0 : 0.5)
        }
    }

    /// One compute type on both sides, the detector's default (without it the default is float32): the comparison is
    /// of the detector alone. (It ran at float32 as well until CI's time was cut: the same bound held there.)
    @Test("the detector costs no accuracy: corpus WER with it within noise of without, per subset")
    func detectorKeepsAccuracy() async throws {
        try await GatingAudio.ready()
        let computeType = ComputeType.auto
        for subset in ["ls-clean", "ls-other", "noisy", "jfk", "other"] {
            let clips = TestEnvironment.clips(subset).filter { $0.language == "en" }
            guard !clips.isEmpty else { continue }
            var with = ErrorCounts(), without = ErrorCounts()
            for clip in clips {
                for vad in [true, false] {
                    let transcriber = FileTranscriber(options: .init(locale: TestEnvironment.english, detectsSpeech: vad,
                                                                     computeType: computeType),
                                                      store: TestModels.store)
                    let text = try await transcriber.transcribe(contentsOf: clip.wav16kURL).text
                    let score = WordErrorRate.score(reference: clip.transcript, hypothesis: text, language: "en")
                    if vad { with += score } else { without += score }
                }
            }
            print("\(computeType) \(subset): WER with the detector \(with.rate), without \(without.rate) (\(with.referenceLength) words)")
            // Within noise: one error in a hundred words, or two errors for small subsets. Without VNNI int8's 7-bit
            // encoder weights move more words either way: two in a hundred (noisy: 59 errors with, 54 without, of 376
            // words, on a Zen 3 EPYC; 49 with and 56 without at 8 bits).
            let noise = MatrixBackend.hasVNNI ? 100 : 50
            #expect(with.errors <= without.errors + max(2, without.referenceLength / noise), "\(subset)")
        }
    }

    @Test("the same segments with one thread or two, and after other work in the process")
    func independentOfThreads() async throws {
        try await GatingAudio.ready()
        let directory = try await TestModels.directory(for: "whisper-tiny.en")
        let chapter = try MonoAudio.load(contentsOf: try #require(Corpus.item("ls-other-chapter-7902-96592")).wav16kURL)
        let samples = Array(chapter.prefix(70 * 16_000))
        var options = TranscriptionOptions(beamSize: 5)
        options.wordTimestamps = true
        let two = try WhisperSession(model: WhisperModel(directory: directory, threads: 2))
        let first = try two.transcribe(samples: samples, options: options)
        _ = try two.transcribe(samples: try MonoAudio.load(contentsOf: try #require(Corpus.item("jfk")).wav16kURL))
        let again = try two.transcribe(samples: samples, options: options)
        let one = try WhisperSession(model: WhisperModel(directory: directory, threads: 1)).transcribe(samples: samples, options: options)
        #expect(first.count > 3)
        #expect(again == first)
        #expect(one == first)
    }

    /// The engine's own long-form transcription of `samples` (English model, word times off), computed once per
    /// audio and beam size in the process: the detector's test case and the one without compare against the same run.
    static func engineText(_ samples: [Float], beamSize: Int) async throws -> String {
        try await EngineTexts.shared.text(samples, beamSize: beamSize)
    }

    actor EngineTexts {
        static let shared = EngineTexts()
        private var texts: [Key: String] = [:]

        struct Key: Hashable { let samples: [Float], beamSize: Int }

        func text(_ samples: [Float], beamSize: Int) async throws -> String {
            let key = Key(samples: samples, beamSize: beamSize)
            if let text = texts[key] { return text }
            let directory = try await TestModels.directory(for: "whisper-tiny.en")
            // Minutes of engine work: on a dispatch thread, not the cooperative pool.
            let text = try await offCooperativePool {
                var options = TranscriptionOptions(beamSize: beamSize)
                options.bestOf = beamSize
                return try WhisperSession(model: WhisperModel(directory: directory), maxBeams: beamSize)
                    .transcribe(samples: samples, options: options).map(\.text).joined()
            }
            texts[key] = text
            return text
        }
    }

    static func expectAccounted(_ text: String, engine: String, reference: String, bound: Double) throws {
        let ours = WordErrorRate.score(reference: reference, hypothesis: text, language: "en")
        let theirs = WordErrorRate.score(reference: reference, hypothesis: engine, language: "en")
        let missing = MissingWords.longestRun(reference: reference, hypothesis: text, language: "en")
        print("WER \(ours.rate * 100) (engine \(theirs.rate * 100)), \(ours.deletions) deleted, longest run missing \(missing)")
        #expect(ours.rate * 100 <= theirs.rate * 100 + bound, "\(text)")
        #expect(missing <= 5, "\(missing) consecutive reference words missing")
    }
}

/// `openspeech transcribe` gives the same output for a file whatever else is on its command line and however often
/// it runs; a truncated file is transcribed as far as it goes, with a warning.
@Suite struct TranscribeCommandOutputTests {
    static var environment: [String: String] { ["OPENSPEECH_HOME": TestModels.home.path] }

    @Test("the same file, alone or after others, twice: identical output")
    func identicalRuns() async throws {
        try await GatingAudio.ready()
        let target = try #require(Corpus.item("2033-164915-0001")).originalURL.path
        let others = ["jfk", "1995-1837-0001"].compactMap { Corpus.item($0)?.originalURL.path }
        var outputs: [NSDictionary] = []
        for files in [[target], [target], others + [target]] {
            let (status, output) = try await OpenSpeechExecutable.run(
                ["transcribe", "--locale", "en-US", "--format", "json", "--quiet"] + files, environment: Self.environment)
            #expect(status == 0, "\(output)")
            // The last JSON document is the target's (several files on stdout: JSON Lines, one a line).
            let document = files.count == 1 ? Substring(output) : try #require(output.split(separator: "\n").last)
            outputs.append(try #require(try JSONSerialization.jsonObject(with: Data(document.utf8)) as? NSDictionary))
        }
        #expect(outputs[0] == outputs[1])
        #expect(outputs[0] == outputs[2])
    }

    @Test("a truncated recording: the audio present is transcribed with a warning; --strict refuses it; audio-info says so")
    func truncated() async throws {
        try await GatingAudio.ready()
        let folder = try makeTemporaryDirectory("openspeech-truncated")
        defer { try? FileManager.default.removeItem(at: folder) }
        let clip = try #require(Corpus.item("1995-1837-0001"))
        let whole = try Data(contentsOf: clip.wav16kURL)
        let cut = folder.appendingPathComponent("cut.wav")
        try whole.prefix(whole.count / 2).write(to: cut)

        let (status, output) = try await OpenSpeechExecutable.run(["transcribe", "--locale", "en-US", cut.path],
                                                                  environment: Self.environment)
        #expect(status == 0, "\(output)")
        #expect(output.contains("warning") && output.contains("truncated"), "\(output)")
        let words = output.split(separator: "\n").last.map { $0.split(separator: " ").count } ?? 0
        #expect(words >= 5, "\(output)")

        let strict = try await OpenSpeechExecutable.run(["transcribe", "--locale", "en-US", "--strict", cut.path],
                                                        environment: Self.environment)
        #expect(strict.status != 0)
        #expect(strict.output.contains("truncated"), "\(strict.output)")

        let info = try await OpenSpeechExecutable.run(["audio-info", cut.path], environment: Self.environment)
        #expect(info.status == 0)
        #expect(info.output.contains("truncated"), "\(info.output)")
        #expect(!info.output.contains("0.000 s"), "\(info.output)")
    }
}
