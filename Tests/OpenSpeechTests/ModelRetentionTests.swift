import Foundation
@testable import OpenSpeech
import Testing
import TestSupport

/// `SpeechAnalyzer.Options.modelRetention` through the process-wide model cache. These sessions use
/// whisper-base, which no other suite loads through the cache, so parallel suites cannot keep it loaded.
@Suite(.serialized) struct ModelRetentionTests {
    static let clip = Corpus.item("1221-135766-0002")!
    static let modelID = "whisper-base"

    func runSession(_ retention: SpeechAnalyzer.Options.ModelRetention) async throws -> URL {
        _ = try await TestModels.directory(for: Self.modelID)
        let transcriber = SpeechTranscriber(locale: TestEnvironment.english, preset: .transcription,
                                            engineConfiguration: .init(modelID: Self.modelID))
        let collector = Task {
        var count = 0
        for try await _ in transcriber.results { count += 1 }
        return count
    }
        let analyzer = SpeechAnalyzer(modules: [transcriber], options: .init(priority: .medium, modelRetention: retention))
        _ = try await analyzer.analyzeSequence(from: AVAudioFile(forReading: Self.clip.originalURL))
        let directory = try #require(TranscriptionProcessor.modelDirectory(locale: TestEnvironment.english, modelID: Self.modelID,
                                                                          store: ModelStore()))
        #expect(await ModelCache.shared.isLoaded(directory), "loaded while in use")
        try await analyzer.finalizeAndFinishThroughEndOfInput()
        #expect(try await collector.value > 0)
        return directory
    }

    @Test func whileInUseUnloadsAtTheEnd() async throws {
        try await TestEnvironment.ready()
        await SpeechModels.endRetention()
        let directory = try await runSession(.whileInUse)
        #expect(await !ModelCache.shared.isLoaded(directory))
    }

    @Test func processLifetimeKeepsUntilEndRetention() async throws {
        try await TestEnvironment.ready()
        let directory = try await runSession(.processLifetime)
        #expect(await ModelCache.shared.isLoaded(directory))
        await SpeechModels.endRetention()
        #expect(await !ModelCache.shared.isLoaded(directory))
    }

    @Test func lingeringKeepsAfterTheSession() async throws {
        try await TestEnvironment.ready()
        let directory = try await runSession(.lingering)
        #expect(await ModelCache.shared.isLoaded(directory), "kept for a while after the session")
        await SpeechModels.endRetention()
        #expect(await !ModelCache.shared.isLoaded(directory))
    }
}
