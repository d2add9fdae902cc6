import Foundation
@testable import OpenSpeech
import Testing
import TestSupport

/// `SpeechDetector` without the Silero model: the energy fallback, reported by `backend`; and the detector's
/// regions as the one source of its analyzer's gating.
@Suite struct SpeechDetectorFallbackTests {
    /// A store in a fresh home with an empty catalog: `silero-vad` is neither installed nor installable.
    static func emptyStore() throws -> ModelStore {
        ModelStore(home: try makeTemporaryDirectory("openspeech-no-vad"), catalog: ModelCatalog(models: []))
    }

    @Test("without silero-vad the detector runs the energy fallback, says so, and finds a clip's speech in 3 s of silence within 0.5 s",
          arguments: ["1089-134686-0002", "1995-1837-0001", "4507-16021-0012"])
    func energyFallback(id: String) async throws {
        let store = try Self.emptyStore()
        defer { try? FileManager.default.removeItem(at: store.home) }
        #expect(store.installedDirectory(for: SpeechDetector.modelID) == nil)
        await #expect(throws: (any Error).self) { try await store.install(SpeechDetector.modelID) }

        let clip = try #require(Corpus.item(id))
        let audio = try MonoAudio.load(contentsOf: clip.wav16kURL)
        let pad = [Float](repeating: 0, count: 3 * 16_000)
        let truth = energyBoundaries(audio)
        let detector = SpeechDetector(detectionOptions: .init(sensitivityLevel: .medium), reportResults: true,
                                      modelStore: store)
        #expect(await detector.backend == nil)
        let results = try await SpeechDetectorModuleTests.detect(pad + audio + pad, detector)
        #expect(await detector.backend == .energy)
        let speech = results.filter(\.speechDetected)
        let first = try #require(speech.first), last = try #require(speech.last)
        print("energy \(id): truth \(3 + truth.start)–\(3 + truth.end), detected \(first.range.start.seconds)–\(last.range.end.seconds) in \(speech.count) regions")
        #expect(abs(first.range.start.seconds - (3 + truth.start)) <= 0.5)
        #expect(abs(last.range.end.seconds - (3 + truth.end)) <= 0.5)
        #expect(speech.allSatisfy { $0.range.start.seconds >= 2.5 && $0.range.end.seconds <= 3.5 + clip.durationSeconds })
    }

    @Test("with silero-vad installed the detector reports the Silero backend")
    func sileroBackend() async throws {
        try await GatingAudio.ready()
        let detector = SpeechDetector(detectionOptions: .init(sensitivityLevel: .medium), reportResults: false)
        _ = try await SpeechDetectorModuleTests.detect([Float](repeating: 0, count: 16_000), detector)
        #expect(await detector.backend == .sileroVAD)
    }

    @Test("a transcriber gates on its analyzer's detector's regions (one detection stream), energy fallback included")
    func transcriberReadsDetectorRegions() async throws {
        try await GatingAudio.ready()
        let (samples, placed) = try GatingAudio.mix()
        let transcriber = SpeechTranscriber(locale: TestEnvironment.english, preset: .transcription)
        let detector = SpeechDetector(detectionOptions: .init(sensitivityLevel: .medium), reportResults: true,
                                      modelStore: try Self.emptyStore())
        let analyzer = SpeechAnalyzer(modules: [transcriber, detector])
        let texts = Task { try await transcriber.results.reduce(into: [SpeechTranscriber.Result]()) { $0.append($1) } }
        let detections = Task { try await detector.results.reduce(into: [SpeechDetector.Result]()) { $0.append($1) } }
        _ = try await analyzer.analyzeSequence(GatingAudio.input(samples))
        let processor = try #require(transcriber.processor as? TranscriptionProcessor)
        #expect(await processor.gateRegions === detector.speechRegions)
        try await analyzer.finalizeAndFinishThroughEndOfInput()
        #expect(await detector.backend == .energy)

        // The detector's speech is where the transcriber found text: results lie within the regions it reported.
        let regions = try await detections.value.filter(\.speechDetected).map(\.range)
        let results = try await texts.value.filter { !SpeechDetectorGatingTests.words([$0]).isEmpty }
        #expect(!results.isEmpty)
        for result in results {
            func inRegion(_ time: Double) -> Bool {
                regions.contains { time >= $0.start.seconds - SpeechGate.margin - 0.01 && time <= $0.end.seconds + SpeechGate.margin + 0.01 }
            }
            let covered = inRegion(result.range.start.seconds) && inRegion(result.range.end.seconds)
            #expect(covered, "text outside the detector's speech: \(result.range.start.seconds)–\(result.range.end.seconds) s")
            #expect(placed.contains { result.range.start.seconds >= $0.offset - 0.5 && result.range.end.seconds <= $0.end + 0.5 })
        }
    }
}
