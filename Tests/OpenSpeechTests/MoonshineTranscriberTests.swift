import Foundation
import OpenSpeech
import SpeechEvaluation
import Testing
import TestSupport

/// Moonshine through the public API when named (issue 44, item 3): files and live audio, with word times.
@Suite(.serialized) struct MoonshineTranscriberTests {
    static let model = "moonshine-base-en"

    static func ready() async throws {
        try await TestEnvironment.ready()
        _ = try await TestModels.directory(for: model)
        _ = try await TestModels.directory(for: "silero-vad")
    }

    @Test("a file of 35 s: words recognized, each word inside its segment and the audio, the model named in the transcript")
    func file() async throws {
        try await Self.ready()
        let item = try #require(Corpus.item("osr-us-000-0034-8k"))
        let files = FileTranscriber(options: .init(locale: TestEnvironment.english, modelID: Self.model, wordTimestamps: true))
        let transcript = try await files.transcribe(contentsOf: item.wav16kURL)
        #expect(transcript.model == Self.model)
        #expect(transcript.language == "en")
        let errors = WordErrorRate.score(reference: item.transcript, hypothesis: transcript.text, language: "en")
        // Measured: 1 error in 82 words.
        #expect(errors.rate < 0.06, "WER \(errors.rate): \(transcript.text)")
        #expect(transcript.segments.count >= 8, "one segment a sentence: \(transcript.segments.map(\.text))")
        for segment in transcript.segments {
            #expect(!segment.words.isEmpty, "\(segment.text)")
            #expect(segment.words.allSatisfy { $0.start >= segment.start - 0.001 && $0.end <= segment.end + 0.001 },
                    "\(segment.text)")
        }
        #expect(transcript.segments.allSatisfy { $0.start >= 0 && $0.end <= transcript.duration + 0.001 })
        #expect(zip(transcript.segments, transcript.segments.dropFirst()).allSatisfy { $0.end <= $1.start + 0.001 })
    }

    /// Volatile transcription beside the detector, the clip fed at once in buffers of `seconds`.
    static func live(_ item: CorpusItem, seconds: Double) async throws -> [SpeechTranscriber.Result] {
        try await live(TestEnvironment.buffers(of: item.wav16kURL, seconds: seconds))
    }

    /// Volatile transcription beside the detector of `buffers`, fed at once.
    static func live(_ buffers: [AVAudioPCMBuffer]) async throws -> [SpeechTranscriber.Result] {
        let transcriber = SpeechTranscriber(locale: TestEnvironment.english, transcriptionOptions: [],
                                            reportingOptions: [.volatileResults], attributeOptions: [.audioTimeRange],
                                            engineConfiguration: .init(modelID: model))
        let detector = SpeechDetector(detectionOptions: .init(sensitivityLevel: .medium), reportResults: false)
        let analyzer = SpeechAnalyzer(modules: [transcriber, detector])
        let collector = Task { try await transcriber.results.reduce(into: [SpeechTranscriber.Result]()) { $0.append($1) } }
        let (stream, continuation) = AsyncStream<AnalyzerInput>.makeStream()
        for buffer in buffers {
            continuation.yield(AnalyzerInput(buffer: buffer))
        }
        continuation.finish()
        _ = try await analyzer.analyzeSequence(stream)
        try await analyzer.finalizeAndFinishThroughEndOfInput()
        return try await collector.value
    }

    @Test("live: volatile results then finals; the finals' words recognized, timed inside the audio, the same on a second run")
    func live() async throws {
        try await Self.ready()
        let item = try #require(Corpus.item("1221-135766-0001"))   // 16.7 s
        let results = try await Self.live(item, seconds: 0.1)
        let finals = results.filter(\.isFinal)
        #expect(results.contains { !$0.isFinal }, "no volatile result")
        let text = finals.map { String($0.text.characters) }.joined()
        let errors = WordErrorRate.score(reference: item.transcript, hypothesis: text, language: "en")
        // Measured: 2 errors in 46 words.
        #expect(errors.rate < 0.12, "WER \(errors.rate): \(text)")
        for final in finals {
            #expect(final.range.start.seconds >= 0 && final.range.end.seconds <= item.durationSeconds + 0.05)
            for run in final.text.runs {
                guard let range = run.audioTimeRange else { continue }
                #expect(range.start.seconds >= final.range.start.seconds - 0.001
                        && range.end.seconds <= final.range.end.seconds + 0.001,
                        "\(final.text[run.range].characters) at \(range.start.seconds)–\(range.end.seconds) in \(final.range.start.seconds)–\(final.range.end.seconds)")
            }
        }
        let again = try await Self.live(item, seconds: 0.1).filter(\.isFinal)
        #expect(again.map { String($0.text.characters) } == finals.map { String($0.text.characters) })
        #expect(again.map(\.range) == finals.map(\.range))
    }

    @Test("live: two utterances, each after a pause the detector mutes: both transcribed")
    func utteranceAfterPause() async throws {
        try await Self.ready()
        // Two LibriSpeech utterances after 1.5 s of silence each, as the live benchmark plays them: a window opening on
        // more than half a second of silence is one Moonshine writes nothing for (`ClipOnset`; a live run lost the
        // first of these clips so).
        let first = try #require(Corpus.item("2830-3980-0043")), second = try #require(Corpus.item("1089-134691-0000"))
        let pause = [Float](repeating: 0, count: 24_000)
        let samples = try pause + MonoAudio.load(contentsOf: first.wav16kURL) + pause
            + MonoAudio.load(contentsOf: second.wav16kURL) + pause
        let buffers = stride(from: 0, to: samples.count, by: 1_600).map {
            MonoAudio.buffer(Array(samples[$0..<min($0 + 1_600, samples.count)]))
        }
        let finals = try await Self.live(buffers).filter(\.isFinal)
        let text = finals.map { String($0.text.characters) }.joined()
        let errors = WordErrorRate.score(reference: first.transcript + " " + second.transcript, hypothesis: text, language: "en")
        #expect(errors.errors <= 1, "\(text)")
    }
}
