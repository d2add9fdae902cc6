import Foundation
import OpenSpeech
import SpeechEvaluation
import Testing
import TestSupport

/// Speakers labelled live (issue 45): the `SpeakerDetector` module in an analyzer, and `transcribe - --live --diarize`
/// as a user runs it, on DiarizationTests' three-speaker conversation.
@Suite(.serialized) struct LiveSpeakerTests {
    /// The detector's results for the conversation fed in buffers of `buffer` samples.
    static func labels(buffer: Int) async throws -> [SpeakerDetector.Result] {
        _ = try await TestModels.directory(for: "campplus-sv-zh-en")
        _ = try await TestModels.directory(for: "silero-vad")
        let detector = SpeakerDetector(modelStore: ModelStore(home: TestModels.home))
        let analyzer = SpeechAnalyzer(modules: [detector])
        async let collected = detector.results.reduce(into: [SpeakerDetector.Result]()) { $0.append($1) }
        let samples = DiarizationTests.conversation.samples
        let format = AVAudioFormat(commonFormat: .pcmFormatFloat32, sampleRate: 16_000, channels: 1, interleaved: false)!
        try await analyzer.prepareToAnalyze(in: format)
        let input = AsyncStream<AnalyzerInput> { continuation in
            for start in stride(from: 0, to: samples.count, by: buffer) {
                continuation.yield(AnalyzerInput(buffer: MonoAudio.buffer(Array(samples[start..<min(samples.count, start + buffer)]))))
            }
            continuation.finish()
        }
        _ = try await analyzer.analyzeSequence(input)
        try await analyzer.finalizeAndFinishThroughEndOfInput()
        return try await collected
    }

    @Test("SpeakerDetector: three speakers, within 8 % DER, results tiling the audio; the same labels whatever the buffer size")
    func detector() async throws {
        try await TestEnvironment.ready()
        let results = try await Self.labels(buffer: 1_600)
        let samples = DiarizationTests.conversation.samples.count
        #expect(results.first?.range.start.value == 0)
        #expect(results.last?.range.end == CMTime(value: Int64(samples), timescale: 16_000))
        for (before, after) in zip(results, results.dropFirst()) {
            #expect(before.range.end == after.range.start, "results tile the timeline")
        }
        #expect(results.allSatisfy { $0.isFinal })
        let hypothesis = results.compactMap { result in
            result.speaker.map { (result.range.start.seconds, result.range.end.seconds, $0) }
        }
        #expect(Set(hypothesis.map(\.2)) == ["Speaker 1", "Speaker 2", "Speaker 3"])
        #expect(hypothesis.first?.2 == "Speaker 1")
        let score = DiarizationErrorRate(reference: DiarizationTests.conversation.turns, hypothesis: hypothesis)
        #expect(score.value < 0.08, "DER \(score.value): miss \(score.miss), false alarm \(score.falseAlarm), confusion \(score.confusion)")
        #expect(try await Self.labels(buffer: 5_111) == results)
    }

    @Test("SpeakerDetector without its model: no audio formats, and preparing the analyzer is noModel naming the install command")
    func detectorWithoutModel() async throws {
        let detector = SpeakerDetector(modelStore: ModelStore(home: try makeTemporaryDirectory("openspeech-no-speakers")))
        #expect(await detector.availableCompatibleAudioFormats.isEmpty)
        let analyzer = SpeechAnalyzer(modules: [detector])
        do {
            try await analyzer.prepareToAnalyze(in: nil)
            Issue.record("preparing without the speaker model succeeded")
        } catch let error as SFSpeechError {
            #expect(error.code == .noModel && error.message.contains("openspeech models install campplus-sv-zh-en"), "\(error)")
        }
    }

    @Test("transcribe - --live --diarize: JSON Lines with speakers on finals and words, text with a line at each change")
    func liveCommand() async throws {
        try await TestEnvironment.ready()
        // The first five turns (about 55 s, three voices, one returning): live transcription runs at the pace the
        // machine allows, slower than real time while other suites run beside it, hence the generous exit limit.
        let turns = DiarizationTests.conversation.turns
        let samples = DiarizationTests.conversation.samples
        let url = try DiarizationTests.write(Array(samples.prefix(Int((turns[4].end + 0.5) * 16_000))), name: "live-conversation")
        defer { try? FileManager.default.removeItem(at: url) }
        let (status, output) = try await runFeedingStandardInput(
            try #require(OpenSpeechExecutable.url),
            ["transcribe", "-", "--live", "--diarize", "--language", "en", "--format", "json", "--quiet"],
            environment: DiarizationTests.environment, bytes: try Data(contentsOf: url), piece: 32_000,
            every: .milliseconds(100), exitWithin: .seconds(400))
        #expect(status == 0, "\(output.suffix(2000))")
        let records = output.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let finals = records.filter { $0["isFinal"] as? Bool == true }
        #expect(!finals.isEmpty, "\(output.suffix(2000))")
        let speakers = finals.compactMap { $0["speaker"] as? String }
        #expect(speakers.count == finals.count, "every final has a speaker: \(finals)")
        #expect(speakers.first == "Speaker 1")
        #expect(Set(speakers) == ["Speaker 1", "Speaker 2", "Speaker 3"], "\(speakers)")
        // Each reference utterance's final words mostly carry one label, a label of its own per real speaker.
        var labelsOf: [String: [String: Int]] = [:]
        for final in finals {
            for word in final["words"] as? [[String: Any]] ?? [] {
                guard let start = word["start"] as? Double, let end = word["end"] as? Double,
                      let speaker = word["speaker"] as? String else { Issue.record("a word without speaker: \(word)"); continue }
                let middle = (start + end) / 2
                guard let turn = turns.first(where: { $0.start <= middle && middle <= $0.end })
                else { continue }
                labelsOf[turn.speaker, default: [:]][speaker, default: 0] += 1
            }
        }
        var assigned: [String: String] = [:]
        for (truth, counts) in labelsOf {
            let (label, count) = try #require(counts.max { $0.value < $1.value })
            #expect(Double(count) / Double(counts.values.reduce(0, +)) > 0.85, "speaker \(truth)'s words: \(counts)")
            assigned[truth] = label
        }
        #expect(Set(assigned.values).count == 3, "each real speaker a label of their own: \(assigned)")

        // Text, capped at two speakers, on the first three turns (three voices).
        let opening = try DiarizationTests.write(Array(samples.prefix(Int((turns[2].end + 0.5) * 16_000))), name: "live-opening")
        defer { try? FileManager.default.removeItem(at: opening) }
        let (textStatus, text) = try await runFeedingStandardInput(
            try #require(OpenSpeechExecutable.url),
            ["transcribe", "-", "--live", "--diarize", "--language", "en", "--format", "text", "--quiet", "--max-speakers", "2"],
            environment: DiarizationTests.environment, bytes: try Data(contentsOf: opening), piece: 32_000,
            every: .milliseconds(100), exitWithin: .seconds(400))
        #expect(textStatus == 0, "\(text.suffix(2000))")
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.first == "Speaker 1", "\(text.prefix(200))")
        let named = Set(lines.filter { $0.hasPrefix("Speaker ") })
        #expect(named == ["Speaker 1", "Speaker 2"], "--max-speakers 2: \(named)")
    }
}
