import Foundation
import OpenSpeech
import Testing
import TestSupport

/// `SpeechDetector` alone: a real module whose results tile the timeline with speech and silence.
@Suite struct SpeechDetectorModuleTests {
    static func detect(_ samples: [Float], _ detector: SpeechDetector) async throws -> [SpeechDetector.Result] {
        let analyzer = SpeechAnalyzer(modules: [detector])
        let collector = Task { try await detector.results.reduce(into: [SpeechDetector.Result]()) { $0.append($1) } }
        _ = try await analyzer.analyzeSequence(GatingAudio.input(samples))
        try await analyzer.finalizeAndFinishThroughEndOfInput()
        return try await collector.value
    }

    @Test("alone it reports each sentence within 0.25 s of its boundaries, and results tile the timeline",
          arguments: [SpeechDetector.SensitivityLevel.medium, .high])
    func regionsAlone(level: SpeechDetector.SensitivityLevel) async throws {
        try await GatingAudio.ready()
        let (samples, placed) = try GatingAudio.mix()
        let results = try await Self.detect(samples, SpeechDetector(detectionOptions: .init(sensitivityLevel: level),
                                                                    reportResults: true))
        #expect(results.allSatisfy { $0.isFinal })
        #expect(results.first?.range.start == .zero)
        #expect(abs((results.last?.range.end.seconds ?? 0) - 60) < 0.001)
        for (a, b) in zip(results, results.dropFirst()) { #expect(a.range.end == b.range.start) }
        let speech = results.filter(\.speechDetected)
        #expect(speech.allSatisfy { region in placed.contains { region.range.start.seconds < $0.end && region.range.end.seconds > $0.offset } },
                "speech outside the clips: \(speech.map(\.range))")
        for clip in placed {
            let inside = speech.filter { $0.range.end.seconds > clip.offset && $0.range.start.seconds < clip.end }
            let first = try #require(inside.first), last = try #require(inside.last)
            print("\(level) \(clip.clip.id): truth \(clip.speechStart)–\(clip.speechEnd), detected \(first.range.start.seconds)–\(last.range.end.seconds)")
            #expect(abs(first.range.start.seconds - clip.speechStart) <= 0.25)
            #expect(abs(last.range.end.seconds - clip.speechEnd) <= 0.25)
        }
    }

    @Test("init() only gates: no results; the model is the catalog's silero-vad")
    func defaultsAndAssets() async throws {
        try await GatingAudio.ready()
        let detector = SpeechDetector()
        #expect(detector.reportResults == false)
        #expect(detector.detectionOptions.sensitivityLevel == .medium)
        #expect(detector.assetModelIDs == ["silero-vad"])
        #expect(await !detector.availableCompatibleAudioFormats.isEmpty)
        let results = try await Self.detect(Array(try GatingAudio.mix().samples.prefix(20 * 16_000)), detector)
        #expect(results.isEmpty)
    }

    @Test("speech still open when the input ends is reported when the analyzer finishes")
    func openRegionClosesAtFinish() async throws {
        try await GatingAudio.ready()
        let (samples, placed) = try GatingAudio.mix()
        let cut = Int((placed[0].speechStart + 2) * 16_000) // two seconds into the first sentence
        let results = try await Self.detect(Array(samples.prefix(cut)),
                                            SpeechDetector(detectionOptions: .init(sensitivityLevel: .low), reportResults: true))
        let last = try #require(results.last { $0.speechDetected })
        #expect(abs(last.range.start.seconds - placed[0].speechStart) <= 0.3)
        #expect(last.range.end.seconds > placed[0].speechStart + 1.5)
    }
}
