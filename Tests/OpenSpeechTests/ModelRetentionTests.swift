import Foundation
@testable import OpenSpeech
import Testing
import TestSupport

/// `SpeechAnalyzer.Options.modelRetention` through the process-wide model cache. The cache keys models by folder,
/// and these sessions load whisper-base from a store of their own (a link to the test store's copy), so suites
/// running in parallel, which load whisper-base too, cannot keep this one loaded.
@Suite(.serialized) struct ModelRetentionTests {
    static let clip = Corpus.item("1221-135766-0002")!
    static let modelID = "whisper-base"

    /// A store holding only a link to the test store's whisper-base.
    func privateStore() async throws -> ModelStore {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("openspeech-retention-\(getpid())")
        try await TestModels.link([Self.modelID], into: home)
        return ModelStore(home: home)
    }

    func runSession(_ retention: SpeechAnalyzer.Options.ModelRetention) async throws -> URL {
        let store = try await privateStore()
        let transcriber = SpeechTranscriber(locale: TestEnvironment.english, transcriptionOptions: [], reportingOptions: [],
                                            attributeOptions: [], engineConfiguration: .init(modelID: Self.modelID),
                                            modelStore: store)
        let collector = Task {
        var count = 0
        for try await _ in transcriber.results { count += 1 }
        return count
    }
        let analyzer = SpeechAnalyzer(modules: [transcriber], options: .init(priority: .medium, modelRetention: retention))
        _ = try await analyzer.analyzeSequence(from: AVAudioFile(forReading: Self.clip.originalURL))
        let directory = try #require(TranscriptionProcessor.modelDirectory(locale: TestEnvironment.english, modelID: Self.modelID,
                                                                          store: store))
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
