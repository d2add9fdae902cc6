import Foundation
import OpenSpeech
import SpeechEvaluation
import Testing
import TestSupport

/// Volatile results (LocalAgreement-2) on buffers fed as a microphone would.
@Suite(.serialized) struct StreamingTests {
    struct Run {
        var results: [SpeechTranscriber.Result]
        /// When each result arrived, and when the feed's last buffer was given.
        var arrivals: [ContinuousClock.Instant] = []
        var fedThrough: ContinuousClock.Instant? = nil
        var finalText: String { results.filter(\.isFinal).map { String($0.text.characters) }.joined() }
    }

    /// Feeds a clip in 100 ms buffers (paced at real time if asked) to a progressive transcriber.
    static func stream(_ clip: CorpusItem, realTime: Bool = false, fastResults: Bool = true,
                       finalizeAt: Double? = nil) async throws -> (Run, finalizedEarly: [SpeechTranscriber.Result]) {
        let transcriber = SpeechTranscriber(locale: TestEnvironment.english, transcriptionOptions: [],
                                            reportingOptions: fastResults ? [.volatileResults, .fastResults] : [.volatileResults],
                                            attributeOptions: [])
        let analyzer = SpeechAnalyzer(modules: [transcriber])
        let collector = Task {
            try await transcriber.results.reduce(into: [(SpeechTranscriber.Result, ContinuousClock.Instant)]()) {
                $0.append(($1, .now))
            }
        }
        let (stream, builder) = AsyncStream.makeStream(of: AnalyzerInput.self)
        try await analyzer.start(inputSequence: stream)
        var early: [SpeechTranscriber.Result] = []
        for (index, buffer) in try TestEnvironment.buffers(of: clip.wav16kURL).enumerated() {
            builder.yield(AnalyzerInput(buffer: buffer))
            if realTime { try await Task.sleep(for: .milliseconds(100)) }
            if let finalizeAt, Double(index + 1) * 0.1 == finalizeAt {
                let time = CMTime(seconds: finalizeAt, preferredTimescale: 16_000)
                try await analyzer.finalize(through: time)
                early = [] // filled below from the collected results
            }
        }
        builder.finish()
        let fedThrough = ContinuousClock.now
        try await analyzer.finalizeAndFinishThroughEndOfInput()
        let collected = try await collector.value
        let results = collected.map(\.0)
        if let finalizeAt {
            early = results.filter { $0.isFinal && $0.range.end.seconds <= finalizeAt + 0.01 }
        }
        return (Run(results: results, arrivals: collected.map(\.1), fedThrough: fedThrough), early)
    }

    /// A clip at real-time pace: volatile results before final ones, finals in time order covering the speech, a
    /// volatile result never over audio already final. And finals are a function of the audio
    /// (`VolatileDecodeSchedule`): the same words at the same times whether the audio comes at real-time pace
    /// (volatile-only previews in between, as many as the machine affords) or all at once, with or without
    /// `.fastResults`.
    @Test func liveFeedAndFinalsOfTheAudioAlone() async throws {
        try await TestEnvironment.ready()
        let clip = Corpus.item("1221-135766-0001")! // 16.7 s
        let (live, _) = try await Self.stream(clip, realTime: true)
        let finalResults = live.results.filter(\.isFinal)
        #expect(live.results.contains { !$0.isFinal }, "volatile results arrive before final ones")
        #expect(finalResults.count >= 2)
        // Finals come in time order, without overlap, and cover the speech.
        for (a, b) in zip(finalResults, finalResults.dropFirst()) {
            #expect(a.range.end <= b.range.start + CMTime(value: 1, timescale: 100))
        }
        #expect(finalResults.last!.range.end.seconds > clip.durationSeconds - 2)
        // A volatile result never claims audio already final.
        var finalizedThrough = CMTime.zero
        for result in live.results {
            if result.isFinal { finalizedThrough = max(finalizedThrough, result.range.end) } else {
                #expect(result.range.start >= finalizedThrough - CMTime(value: 1, timescale: 100))
            }
        }
        let score = WordErrorRate.score(reference: clip.transcript, hypothesis: live.finalText, language: "en")
        #expect(score.rate < 0.2, "WER \(score.rate): \(live.finalText)")

        func finals(_ run: Run) -> [String] {
            run.results.filter(\.isFinal).map { "\($0.range.start.seconds)-\($0.range.end.seconds):\(String($0.text.characters))" }
        }
        let (file, _) = try await Self.stream(clip)
        let (slow, _) = try await Self.stream(clip, fastResults: false)
        #expect(finals(live) == finals(file))
        #expect(finals(slow) == finals(file))
        // Volatile results with words: an agreement decoding shows its pending words in both feeds, previews add
        // theirs. (An empty one, clearing the volatile text, may come from a preview instead in a live feed.)
        func shown(_ run: Run) -> Int { run.results.count { !$0.isFinal && !$0.text.characters.isEmpty } }
        func listed(_ run: Run) -> String {
            run.results.map { "\($0.isFinal ? "final" : "volatile") \($0.range.start.seconds)–\($0.range.end.seconds): \(String($0.text.characters))" }
                .joined(separator: "\n")
        }
        // When it fails (about 1 run in 5 here, beside other suites, never alone: cause not found), both feeds' results.
        #expect(shown(live) >= shown(file),
                "a live feed gets at least the volatile results of the agreement decodings:\nlive:\n\(listed(live))\nat once:\n\(listed(file))")
    }

    @Test func streamingIsAsAccurateAsOffline() async throws {
        try await TestEnvironment.ready()
        let (streamed, offline) = try await Self.streamedAndOffline(TestEnvironment.clips("ls-clean"))
        #expect(streamed.rate <= offline.rate + 0.015, "streaming WER \(streamed.rate) vs offline \(offline.rate)")
    }

    /// The finals' errors when each clip is streamed, and the file transcription's.
    static func streamedAndOffline(_ clips: [CorpusItem]) async throws -> (streamed: ErrorCounts, offline: ErrorCounts) {
        var streamed = ErrorCounts(), offline = ErrorCounts()
        for clip in clips {
            let (run, _) = try await stream(clip)
            streamed += WordErrorRate.score(reference: clip.transcript, hypothesis: run.finalText, language: "en")
            let text = try await transcribe(file: clip.wav16kURL, locale: TestEnvironment.english)
            offline += WordErrorRate.score(reference: clip.transcript, hypothesis: String(text.characters), language: "en")
        }
        return (streamed, offline)
    }

    /// Harder speech than LibriSpeech's clean set (audiobooks, read news, TIMIT sentences): the finals' agreement
    /// decodings search with the beam, as files do (greedy ones lost three times as many words to file mode here;
    /// the whole English corpus: `live-bench finals`, BENCHMARKS.md).
    @Test func streamingStaysCloseToOfflineOnHarderSpeech() async throws {
        try await TestEnvironment.ready()
        let (streamed, offline) = try await Self.streamedAndOffline(TestEnvironment.clips("other"))
        // Measured: 12 errors of 328 words against 10 offline; greedy agreement decodings made 16.
        #expect(streamed.rate <= offline.rate + 0.015, "streaming WER \(streamed.rate) vs offline \(offline.rate)")
    }

    @Test func finalizeMidStreamGivesFinalsUpToThatTime() async throws {
        try await TestEnvironment.ready()
        let clip = Corpus.item("1221-135766-0001")!
        let (run, early) = try await Self.stream(clip, finalizeAt: 8)
        #expect(!early.isEmpty, "finals up to 8 s after finalize(through: 8 s)")
        #expect(run.results.filter(\.isFinal).last!.range.end.seconds > 15)
    }
}
