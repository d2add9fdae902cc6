import Foundation
import OpenSpeech
import SpeechEvaluation
import Testing
import TestSupport

/// Sixty-second test signals, made at test time: silence, white noise, a tone, and silence with two corpus
/// clips in the middle (their positions known).
enum GatingAudio {
    static let rate = 16_000
    static let length = 60 * rate

    static var silence: [Float] { [Float](repeating: 0, count: length) }

    /// White noise at about -26 dBFS RMS, from a fixed seed.
    static var whiteNoise: [Float] {
        var state = UInt32(12_345)
        return (0..<length).map { _ in
            state = state &* 1_664_525 &+ 1_013_904_223
            return (Float(state >> 8) / Float(1 << 24) - 0.5) * 0.17
        }
    }

    /// A 440 Hz sine at half scale.
    static var tone: [Float] { (0..<length).map { Float(0.5 * sin(2 * Double.pi * 440 * Double($0) / 16_000)) } }

    struct Placed {
        let clip: CorpusItem
        /// Where the clip starts in the mix, and where its speech starts and ends (seconds in the mix).
        let offset: Double
        let speechStart: Double
        let speechEnd: Double
        var end: Double { offset + clip.durationSeconds }
    }

    /// Silence with "1089-134686-0002" (6.6 s) at 10 s and "1995-1837-0001" (8.7 s) at 36 s.
    static func mix() throws -> (samples: [Float], placed: [Placed]) {
        var samples = silence
        var placed: [Placed] = []
        for (id, offset) in [("1089-134686-0002", 10.0), ("1995-1837-0001", 36.0)] {
            let clip = try #require(Corpus.item(id))
            let audio = try MonoAudio.load(contentsOf: clip.wav16kURL)
            let start = Int(offset) * rate
            samples.replaceSubrange(start..<(start + audio.count), with: audio)
            let truth = energyBoundaries(audio)
            placed.append(Placed(clip: clip, offset: offset, speechStart: offset + truth.start, speechEnd: offset + truth.end))
        }
        return (samples, placed)
    }

    /// The samples as analyzer input in one-second buffers.
    static func input(_ samples: [Float]) -> AsyncStream<AnalyzerInput> {
        let size = rate
        let buffers = stride(from: 0, to: samples.count, by: size).map { start in
            let count = min(size, samples.count - start)
            let buffer = AVAudioPCMBuffer(pcmFormat: MonoAudio.format(), frameCapacity: AVAudioFrameCount(count))!
            samples.withUnsafeBufferPointer {
                buffer.floatChannelData![0].update(from: $0.baseAddress! + start, count: count)
            }
            buffer.frameLength = AVAudioFrameCount(count)
            return AnalyzerInput(buffer: buffer)
        }
        return AsyncStream { continuation in
            for buffer in buffers { continuation.yield(buffer) }
            continuation.finish()
        }
    }

    static func ready() async throws {
        try await TestEnvironment.ready()
        _ = try await TestModels.directory(for: "silero-vad")
    }
}

/// A transcriber beside a `SpeechDetector` gets no text for what the detector calls silence.
@Suite(.serialized) struct SpeechDetectorGatingTests {
    /// Runs `samples` through one analyzer with the given transcribers and a reporting detector.
    static func analyze(_ samples: [Float], transcribers: [SpeechTranscriber], detector: SpeechDetector? = nil)
        async throws -> (texts: [[SpeechTranscriber.Result]], detections: [SpeechDetector.Result]) {
        let modules: [any SpeechModule] = transcribers + (detector.map { [$0] } ?? [])
        let analyzer = SpeechAnalyzer(modules: modules)
        let collectors = transcribers.map { transcriber in
            Task { try await transcriber.results.reduce(into: [SpeechTranscriber.Result]()) { $0.append($1) } }
        }
        let detections = Task {
            guard let detector else { return [SpeechDetector.Result]() }
            return try await detector.results.reduce(into: [SpeechDetector.Result]()) { $0.append($1) }
        }
        _ = try await analyzer.analyzeSequence(GatingAudio.input(samples))
        try await analyzer.finalizeAndFinishThroughEndOfInput()
        var texts: [[SpeechTranscriber.Result]] = []
        for collector in collectors { texts.append(try await collector.value) }
        return (texts, try await detections.value)
    }

    static func words(_ results: [SpeechTranscriber.Result]) -> [String] {
        results.filter(\.isFinal).flatMap { String($0.text.characters).split(separator: " ").map(String.init) }
            .filter { $0.contains { $0.isLetter || $0.isNumber } }
    }

    @Test("no words on a minute of silence, white noise or a tone (final-only and progressive transcribers)",
          arguments: ["silence", "white noise", "tone"])
    func noWordsWithoutSpeech(signal: String) async throws {
        try await GatingAudio.ready()
        let samples = switch signal {
        case "silence": GatingAudio.silence
        case "white noise": GatingAudio.whiteNoise
        default: GatingAudio.tone
        }
        let offline = SpeechTranscriber(locale: TestEnvironment.english, preset: .transcription)
        let progressive = SpeechTranscriber(locale: TestEnvironment.english, preset: .progressiveTranscription)
        let detector = SpeechDetector(detectionOptions: .init(sensitivityLevel: .medium), reportResults: true)
        let run = try await Self.analyze(samples, transcribers: [offline, progressive], detector: detector)
        for results in run.texts {
            #expect(Self.words(results).isEmpty, "\(signal): \(results.map { String($0.text.characters) })")
            #expect(results.allSatisfy { $0.text.characters.allSatisfy { !$0.isLetter } })
        }
        #expect(!run.detections.contains { $0.speechDetected }, "\(signal): \(run.detections)")
    }

    @Test("two sentences in a minute of silence: no words outside them, WER no worse than the clips alone")
    func sentencesInSilence() async throws {
        try await GatingAudio.ready()
        let (samples, placed) = try GatingAudio.mix()
        let transcriber = SpeechTranscriber(locale: TestEnvironment.english, preset: .transcription)
        let detector = SpeechDetector(detectionOptions: .init(sensitivityLevel: .medium), reportResults: true)
        let run = try await Self.analyze(samples, transcribers: [transcriber], detector: detector)
        let finals = run.texts[0].filter(\.isFinal)
        // Every result with words lies within a clip.
        for result in finals where !Self.words([result]).isEmpty {
            let inside = placed.contains { result.range.start.seconds >= $0.offset - 0.5 && result.range.end.seconds <= $0.end + 0.5 }
            #expect(inside, "text outside the speech: \(result.range.start.seconds)–\(result.range.end.seconds) s: \(result.text)")
        }
        // Recognition no worse than each clip transcribed alone (same transcriber, no detector).
        let reference = placed.map(\.clip.transcript).joined(separator: " ")
        let mixed = finals.map { String($0.text.characters) }.joined(separator: " ")
        var alone: [String] = []
        for clip in placed {
            let single = SpeechTranscriber(locale: TestEnvironment.english, preset: .transcription)
            let audio = Array(samples[Int(clip.offset * 16_000)..<Int(clip.end * 16_000)])
            let results = try await Self.analyze(audio, transcribers: [single]).texts[0]
            alone.append(results.filter(\.isFinal).map { String($0.text.characters) }.joined(separator: " "))
        }
        let mixedScore = WordErrorRate.score(reference: reference, hypothesis: mixed, language: "en")
        let aloneScore = WordErrorRate.score(reference: reference, hypothesis: alone.joined(separator: " "), language: "en")
        print("mix WER \(mixedScore.rate): \(mixed)\nalone WER \(aloneScore.rate): \(alone)")
        #expect(mixedScore.rate <= aloneScore.rate + 1e-9, "mix: \(mixed)\nalone: \(alone)")
        // The detector found each sentence within 0.25 s of its boundaries.
        for clip in placed {
            let speech = run.detections.filter {
                $0.speechDetected && $0.range.end.seconds > clip.offset && $0.range.start.seconds < clip.end
            }
            let first = try #require(speech.first), last = try #require(speech.last)
            #expect(abs(first.range.start.seconds - clip.speechStart) <= 0.25, "start \(first.range.start.seconds) vs \(clip.speechStart)")
            #expect(abs(last.range.end.seconds - clip.speechEnd) <= 0.25, "end \(last.range.end.seconds) vs \(clip.speechEnd)")
        }
    }
}
