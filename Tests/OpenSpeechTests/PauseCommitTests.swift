import Foundation
@testable import OpenSpeech
import SpeechEvaluation
import Testing
import TestSupport

/// Volatile transcription commits at the detector's pauses (`PauseCommit`): the rule without a model, then two real
/// sentences half a second apart through a volatile transcriber beside a `SpeechDetector`.
@Suite(.serialized) struct PauseCommitTests {
    @Test("a closed region after the last final, with no speech in progress, is committed through its margin")
    func commitPoint() {
        let margin = Int64(SpeechGate.margin * 16_000)
        #expect(PauseCommit.commitPoint(closedRegions: [1_000..<20_000], speechInProgress: false, finalizedThrough: 0,
                                        received: 40_000) == 20_000 + margin)
        // Within the audio received.
        #expect(PauseCommit.commitPoint(closedRegions: [1_000..<20_000], speechInProgress: false, finalizedThrough: 0,
                                        received: 22_000) == 22_000)
        // Speech in progress: wait for its pause.
        #expect(PauseCommit.commitPoint(closedRegions: [1_000..<20_000], speechInProgress: true, finalizedThrough: 0,
                                        received: 40_000) == nil)
        // Already final, or nothing closed.
        #expect(PauseCommit.commitPoint(closedRegions: [1_000..<20_000], speechInProgress: false,
                                        finalizedThrough: 20_000 + margin, received: 40_000) == nil)
        #expect(PauseCommit.commitPoint(closedRegions: [], speechInProgress: false, finalizedThrough: 0,
                                        received: 40_000) == nil)
        // Only the last region counts.
        #expect(PauseCommit.commitPoint(closedRegions: [1_000..<5_000, 9_000..<12_000], speechInProgress: false,
                                        finalizedThrough: 6_000, received: 40_000) == 12_000 + margin)
    }

    @Test("with a detector, agreed words wait for the pause until the window runs 20 s; without one they commit")
    func agreementWaitsForThePause() {
        #expect(!PauseCommit.agreementCommits(windowSeconds: 3, detectorPresent: true))
        #expect(!PauseCommit.agreementCommits(windowSeconds: 19.9, detectorPresent: true))
        #expect(PauseCommit.agreementCommits(windowSeconds: 20, detectorPresent: true))
        #expect(PauseCommit.agreementCommits(windowSeconds: 3, detectorPresent: false))
    }

    /// Two sentences with `gap` seconds of silence between them, in 100 ms buffers, to a volatile transcriber
    /// beside a detector (as `openspeech listen`), fed at once or at real-time pace.
    static func run(gap: Double, realTime: Bool) async throws -> (results: [SpeechTranscriber.Result], firstEnd: Double) {
        let first = try MonoAudio.load(contentsOf: Corpus.item("1221-135766-0001")!.wav16kURL)
        let second = try MonoAudio.load(contentsOf: Corpus.item("1221-135766-0002")!.wav16kURL)
        let audio = first + [Float](repeating: 0, count: Int(gap * 16_000)) + second
        let transcriber = SpeechTranscriber(locale: TestEnvironment.english, transcriptionOptions: [],
                                            reportingOptions: [.volatileResults], attributeOptions: [.audioTimeRange])
        let detector = SpeechDetector(detectionOptions: .init(sensitivityLevel: .medium), reportResults: false)
        let analyzer = SpeechAnalyzer(modules: [transcriber, detector])
        let collector = Task { try await transcriber.results.reduce(into: [SpeechTranscriber.Result]()) { $0.append($1) } }
        let (stream, builder) = AsyncStream.makeStream(of: AnalyzerInput.self)
        try await analyzer.start(inputSequence: stream)
        for start in stride(from: 0, to: audio.count, by: 1_600) {
            let count = min(1_600, audio.count - start)
            let buffer = AVAudioPCMBuffer(pcmFormat: MonoAudio.format(), frameCapacity: AVAudioFrameCount(count))!
            audio.withUnsafeBufferPointer { buffer.floatChannelData![0].update(from: $0.baseAddress! + start, count: count) }
            buffer.frameLength = AVAudioFrameCount(count)
            builder.yield(AnalyzerInput(buffer: buffer))
            if realTime { try await Task.sleep(for: .milliseconds(100)) }
        }
        builder.finish()
        try await analyzer.finalizeAndFinishThroughEndOfInput()
        return (try await collector.value, Double(first.count) / 16_000)
    }

    @Test("the first sentence is committed through its pause; finals depend on the audio alone; WER as a file")
    func finalAtThePause() async throws {
        try await TestEnvironment.ready()
        _ = try await TestModels.directory(for: "silero-vad")
        let gap = 1.5
        let (results, firstEnd) = try await Self.run(gap: gap, realTime: false)
        // The first sentence's last final reaches past its last word into the pause (`PauseCommit` commits through
        // the detector's region and its margin; an agreement commit ends at the last word agreed on).
        let finals = results.filter(\.isFinal)
        let lastOfFirst = finals.last { $0.range.start.seconds < firstEnd && $0.range.end.seconds < firstEnd + gap }
        let lastWordEnd = lastOfFirst?.text.runs.compactMap { $0.audioTimeRange?.end.seconds }.max()
        #expect(lastOfFirst != nil && lastWordEnd != nil)
        if let lastOfFirst, let lastWordEnd {
            #expect(lastOfFirst.range.end.seconds >= lastWordEnd + 0.2,
                    "final through \(lastOfFirst.range.end.seconds) s, last word ends at \(lastWordEnd) s")
        }
        let reference = Corpus.item("1221-135766-0001")!.transcript + " " + Corpus.item("1221-135766-0002")!.transcript
        let text = finals.map { String($0.text.characters) }.joined()
        let score = WordErrorRate.score(reference: reference, hypothesis: text, language: "en")
        #expect(score.rate < 0.1, "WER \(score.rate): \(text)")
        // The same finals at real-time pace (previews in between, as many as the machine affords).
        let (live, _) = try await Self.run(gap: gap, realTime: true)
        func described(_ results: [SpeechTranscriber.Result]) -> [String] {
            results.filter(\.isFinal).map { "\($0.range.start.seconds)-\($0.range.end.seconds):\(String($0.text.characters))" }
        }
        #expect(described(live) == described(results))
    }
}
