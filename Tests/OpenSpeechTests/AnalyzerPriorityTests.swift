import Foundation
@testable import OpenSpeech
import Synchronization
import Testing
import TestSupport

/// `SpeechAnalyzer.Options.priority`: the analyzer's own tasks (reading input, modules' processing) run at it.
///
/// The test task never calls the analyzer while its input runs, so no await of ours can escalate the work.
@Suite struct AnalyzerPriorityTests {
    /// Records the priority of the task that reads it at each element; `done` ends when it is read to its end.
    struct ProbedInput: AsyncSequence, Sendable {
        typealias Element = AnalyzerInput
        let buffers: Int
        let seen: PriorityLog

        struct AsyncIterator: AsyncIteratorProtocol {
            var remaining: Int
            let seen: PriorityLog
            mutating func next() async -> AnalyzerInput? {
                seen.record(Task.currentPriority)
                guard remaining > 0 else {
                    seen.finish()
                    return nil
                }
                remaining -= 1
                return AnalyzerInput(buffer: AnalyzerPriorityTests.silence())
            }
        }

        func makeAsyncIterator() -> AsyncIterator { AsyncIterator(remaining: buffers, seen: seen) }
    }

    /// Priorities seen, and a stream that ends when the observed work is done.
    final class PriorityLog: Sendable {
        private let state = Mutex<[TaskPriority]>([])
        let done: AsyncStream<Void>
        private let continuation: AsyncStream<Void>.Continuation

        init() { (done, continuation) = AsyncStream.makeStream() }
        func record(_ priority: TaskPriority) { state.withLock { $0.append(priority) } }
        func finish() { continuation.finish() }
        var priorities: [TaskPriority] { state.withLock { $0 } }
        func waitUntilDone() async { for await _ in done {} }
    }

    /// A module of the package's internal kind whose processor records the priority its audio arrives at.
    final class ProbeModule: SpeechModule, AnalyzerDrivenModule {
        struct Result: SpeechModuleResult {
            var range: CMTimeRange
            var resultsFinalizationTime: CMTime
        }

        let results: AsyncThrowingStream<Result, any Error>
        let processor: any ModuleProcessor
        var availableCompatibleAudioFormats: [AVAudioFormat] { get async { SpeechAnalyzer.speechFormats } }

        init(log: PriorityLog) {
            results = AsyncThrowingStream { $0.finish() }
            processor = ProbeProcessor(log: log)
        }
    }

    actor ProbeProcessor: ModuleProcessor {
        let log: PriorityLog
        init(log: PriorityLog) { self.log = log }
        func prepare(context: AnalysisContext, retention: SpeechAnalyzer.Options.ModelRetention) async throws {}
        func append(_ samples: [Float], at start: Int64) async throws { log.record(Task.currentPriority) }
        func finalize(through end: Int64?) async throws { log.record(Task.currentPriority) }
        func cancel(before start: Int64) async {}
        func setContext(_ context: AnalysisContext) async {}
        func finish(throwing error: (any Error)?) async { log.finish() }
    }

    static func silence() -> AVAudioPCMBuffer {
        let buffer = AVAudioPCMBuffer(pcmFormat: SpeechAnalyzer.speechFormats[0], frameCapacity: 1_600)!
        buffer.frameLength = 1_600
        for i in 0..<1_600 { buffer.floatChannelData![0][i] = 0 }
        return buffer
    }

    static let priorities: [TaskPriority] = [.low, .high, .background]

    @Test("start(inputSequence:) reads the input at the options' priority", arguments: priorities)
    func startedSequence(priority: TaskPriority) async throws {
        let log = PriorityLog()
        let analyzer = SpeechAnalyzer(modules: [], options: .init(priority: priority, modelRetention: .whileInUse))
        try await analyzer.start(inputSequence: ProbedInput(buffers: 5, seen: log))
        await log.waitUntilDone()
        #expect(log.priorities.count == 6 && log.priorities.allSatisfy { $0 == priority }, "\(log.priorities)")
        analyzer.cancelAndFinishNow()
    }

    @Test("init(inputSequence:) reads the input at the options' priority", arguments: priorities)
    func initialSequence(priority: TaskPriority) async throws {
        let log = PriorityLog()
        let analyzer = SpeechAnalyzer(inputSequence: ProbedInput(buffers: 5, seen: log), modules: [],
                                      options: .init(priority: priority, modelRetention: .whileInUse))
        await log.waitUntilDone()
        #expect(log.priorities.count == 6 && log.priorities.allSatisfy { $0 == priority }, "\(log.priorities)")
        analyzer.cancelAndFinishNow()
    }

    @Test("a file started with finishAfterFile is processed by the modules at the options' priority",
          arguments: priorities)
    func startedFile(priority: TaskPriority) async throws {
        let clip = try #require(Corpus.item("jfk"))
        let log = PriorityLog()
        let analyzer = SpeechAnalyzer(modules: [ProbeModule(log: log)],
                                      options: .init(priority: priority, modelRetention: .whileInUse))
        try await analyzer.start(inputAudioFile: try AVAudioFile(forReading: clip.wav16kURL), finishAfterFile: true)
        await log.waitUntilDone()
        // 11 s in one-second reads, the converter's tail, then the finalization.
        #expect(log.priorities.count >= 12 && log.priorities.allSatisfy { $0 == priority }, "\(log.priorities)")
    }
}
