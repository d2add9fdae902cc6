import Foundation
@testable import OpenSpeech
import SpeechEvaluation
import Testing
import TestSupport

/// Long inputs made at test time: corpus clips over faint white noise (-59 dBFS RMS), their speech boundaries known.
enum LongFormAudio {
    static let rate = 16_000

    /// About three minutes: six clips 20 s apart, with 10 s before the first and after the last.
    static func clipsApart() throws -> (samples: [Float], placed: [GatingAudio.Placed]) {
        let ids = ["1221-135766-0001", "1995-1837-0001", "jfk", "2033-164915-0001", "1089-134686-0002", "7018-75788-0003"]
        var layout: [(String, Double)] = []
        var time = 10.0
        for id in ids {
            layout.append((id, time))
            time += try #require(Corpus.item(id)).durationSeconds + 20
        }
        return try make(layout, seconds: time - 10)
    }

    /// `seconds` of faint noise with each clip `id` placed `at` seconds.
    static func make(_ layout: [(id: String, at: Double)], seconds: Double) throws -> (samples: [Float], placed: [GatingAudio.Placed]) {
        var state = UInt32(2_024)
        var samples = (0..<Int(seconds * Double(rate))).map { _ -> Float in
            state = state &* 1_664_525 &+ 1_013_904_223
            return (Float(state >> 8) / Float(1 << 24) - 0.5) * 0.004
        }
        var placed: [GatingAudio.Placed] = []
        for (id, offset) in layout {
            let clip = try #require(Corpus.item(id))
            let audio = try MonoAudio.load(contentsOf: clip.wav16kURL)
            let start = Int(offset * Double(rate))
            samples.replaceSubrange(start..<(start + audio.count), with: audio)
            let truth = energyBoundaries(audio)
            placed.append(GatingAudio.Placed(clip: clip, offset: offset, speechStart: offset + truth.start,
                                             speechEnd: offset + truth.end))
        }
        return (samples, placed)
    }
}

/// Final-only transcription beside a `SpeechDetector` on long input: only the speech (with its margins and short
/// pauses) reaches the engine.
@Suite(.serialized) struct OfflineSpeechSegmentsTests {
    static func transcriber() -> SpeechTranscriber {
        SpeechTranscriber(locale: TestEnvironment.english, transcriptionOptions: [], reportingOptions: [],
                          attributeOptions: [.audioTimeRange])
    }

    static func text(_ results: [SpeechTranscriber.Result]) -> String {
        results.filter(\.isFinal).map { String($0.text.characters) }.joined(separator: " ")
    }

    @Test("three minutes of clips 20 s apart: the engine hears only speech; WER within 2 points of the clips alone; no words in the gaps")
    func clipsBetweenLongSilences() async throws {
        try await GatingAudio.ready()
        let (samples, placed) = try LongFormAudio.clipsApart()
        try await Self.verify(samples, placed)
    }

    @Test("past five minutes, speech after long silences is transcribed once, whole")
    func speechAfterLongSilences() async throws {
        try await GatingAudio.ready()
        // The second clip runs from 296 s to 302.6 s, after three minutes of faint noise.
        let (samples, placed) = try LongFormAudio.make([("1995-1837-0001", 100), ("1089-134686-0002", 296)], seconds: 320)
        try await Self.verify(samples, placed)
    }

    /// Transcribes `samples` offline beside a detector and checks what the engine heard, where the results and their
    /// words lie, and recognition against each clip transcribed alone.
    static func verify(_ samples: [Float], _ placed: [GatingAudio.Placed]) async throws {
        let transcriber = Self.transcriber()
        let detector = SpeechDetector(detectionOptions: .init(sensitivityLevel: .medium), reportResults: false)
        let run = try await SpeechDetectorGatingTests.analyze(samples, transcribers: [transcriber], detector: detector)
        let finals = run.texts[0].filter(\.isFinal)
        let volatile = run.texts[0].filter { !$0.isFinal }
        #expect(volatile.isEmpty)

        // The engine was given the speech segments only.
        let processor = try #require(transcriber.processor as? TranscriptionProcessor)
        let sent = await processor.offlineSamplesTranscribed
        let speech = placed.map { $0.speechEnd - $0.speechStart }.reduce(0, +)
        print("input \(Double(samples.count) / 16_000) s, speech \(speech) s, sent to the engine \(Double(sent) / 16_000) s")
        #expect(Double(sent) / 16_000 >= speech, "less than the speech went to the engine")
        #expect(Double(sent) < 0.5 * Double(samples.count), "the engine heard silence")

        // Results and their words lie within the clips' speech, in order.
        let slack = 0.75
        func inside(_ range: CMTimeRange) -> Bool {
            placed.contains { range.start.seconds >= $0.speechStart - slack && range.end.seconds <= $0.speechEnd + slack }
        }
        for result in finals {
            #expect(inside(result.range), "result outside speech: \(result.range.start.seconds)–\(result.range.end.seconds) s: \(result.text)")
            for run in result.text.runs where !String(result.text[run.range].characters).trimmingCharacters(in: .whitespaces).isEmpty {
                let range = try #require(run.audioTimeRange, "a word without a time range")
                #expect(inside(range), "word in a gap: \(String(result.text[run.range].characters)) at \(range.start.seconds)–\(range.end.seconds) s")
            }
        }
        for (a, b) in zip(finals, finals.dropFirst()) { #expect(a.range.start <= b.range.start) }

        // Recognition within 2 points of each clip transcribed alone (same options, no detector).
        let reference = placed.map(\.clip.transcript).joined(separator: " ")
        var alone: [String] = []
        for clip in placed {
            let audio = try MonoAudio.load(contentsOf: clip.clip.wav16kURL)
            let results = try await SpeechDetectorGatingTests.analyze(audio, transcribers: [Self.transcriber()]).texts[0]
            alone.append(Self.text(results))
        }
        let mixed = Self.text(finals)
        let mixedScore = WordErrorRate.score(reference: reference, hypothesis: mixed, language: "en")
        let aloneScore = WordErrorRate.score(reference: reference, hypothesis: alone.joined(separator: " "), language: "en")
        print("long-form WER \(mixedScore.rate) (alone \(aloneScore.rate))\nmixed: \(mixed)\nalone: \(alone.joined(separator: " "))")
        #expect(mixedScore.rate <= aloneScore.rate + 0.02, "mixed: \(mixed)\nalone: \(alone)")
        // Clip by clip (results assigned to clips by their time ranges): at most two word errors more than alone (the
        // text before, as prompt, changes a word here and there: "asked" for "ask").
        for (clip, aloneText) in zip(placed, alone) {
            let heard = finals.filter {
                $0.range.start.seconds >= clip.speechStart - slack && $0.range.end.seconds <= clip.speechEnd + slack
            }
            let clipScore = WordErrorRate.score(reference: clip.clip.transcript, hypothesis: Self.text(heard), language: "en")
            let clipAlone = WordErrorRate.score(reference: clip.clip.transcript, hypothesis: aloneText, language: "en")
            print("\(clip.clip.id): \(clipScore.errors) errors in the mix, \(clipAlone.errors) alone, of \(clipScore.referenceLength) words")
            #expect(clipScore.errors <= clipAlone.errors + 2, "\(clip.clip.id): \(Self.text(heard))")
        }
    }

    @Test("without a detector the input is transcribed whole, as before")
    func withoutDetector() async throws {
        try await GatingAudio.ready()
        let samples = Array(try LongFormAudio.clipsApart().samples.prefix(40 * 16_000))
        let transcriber = Self.transcriber()
        _ = try await SpeechDetectorGatingTests.analyze(samples, transcribers: [transcriber])
        let processor = try #require(transcriber.processor as? TranscriptionProcessor)
        #expect(await processor.offlineSamplesTranscribed == samples.count)
    }
}
