import Foundation
import OpenSpeech
import SpeechAudio
import Synchronization

/// The live transcription of one Realtime item while its speech is still arriving (server VAD heard it start and
/// not yet stop): the library's `SpeechTranscriber` with `.volatileResults` (LocalAgreement-2 over a re-decoded
/// window, greedy) in a `SpeechAnalyzer` of its own. The words it commits go out as the item's first `delta`
/// events; the item's `completed` transcript stays its file transcription.
///
/// What it costs is bounded: audio goes to the analyzer in pieces of at least `stepSamples`, one piece at a time
/// (one decode in flight per session); a piece goes only when the server has a free transcription slot (never
/// waiting for one: the committed items' transcriptions come first), and audio that arrives meanwhile waits and
/// goes as one piece, decoded once: when the machine is behind, decodes are skipped, not queued.
final class VolatileItemTranscription: Sendable {
    /// The least new audio decoded again (the transcriber's own step: it re-decodes after 1 s of new audio).
    static let stepSamples = 16_000

    private struct State {
        var pending: [Float]
        var feeding = false
        var stopped = false
        /// The hotwords, given to the analyzer before its first audio.
        var context: AnalysisContext?
    }

    private let analyzer: SpeechAnalyzer
    private let limiter: ConcurrencyLimiter
    private let collector: Task<Void, Never>
    private let state: Mutex<State>

    /// Starts with the item's audio so far; `deltas` gets the words committed.
    init(settings: RealtimeSessionSettings, configuration: ServerConfiguration, limiter: ConcurrencyLimiter,
         audio: [Float], deltas: ItemDeltaStream) {
        let transcriber = SpeechTranscriber(
            locale: settings.locale, transcriptionOptions: [], reportingOptions: [.volatileResults], attributeOptions: [],
            engineConfiguration: .init(modelID: settings.modelID, beamSize: 1, computeType: configuration.computeType ?? .default,
                                       initialPrompt: settings.prompt, temperatures: [0]),
            modelStore: configuration.store)
        analyzer = SpeechAnalyzer(modules: [transcriber], options: .init(priority: .userInitiated,
                                                                           modelRetention: .processLifetime))
        self.limiter = limiter
        var state = State(pending: audio)
        if !settings.hotwords.isEmpty {
            let context = AnalysisContext()
            context.contextualStrings[.general] = settings.hotwords
            state.context = context
        }
        self.state = Mutex(state)
        collector = Task.detached {
            do {
                for try await result in transcriber.results where result.isFinal {
                    deltas.volatile(String(result.text.characters))
                }
            } catch {
                // The analyzer was cancelled or failed: the item's file transcription says what there is to say.
            }
        }
        feedIfReady()
    }

    /// More of the item's audio (16 kHz), in order: called from the session's actor only.
    func append(_ samples: [Float]) {
        state.withLock { state in
            guard !state.stopped else { return }
            state.pending += samples
        }
        feedIfReady()
    }

    /// The item was committed (or cleared): no more decoding; results end.
    func stop() {
        state.withLock { state in
            state.stopped = true
            state.pending = []
        }
        analyzer.cancelAndFinishNow()
        collector.cancel()
    }

    /// Starts feeding the analyzer when a step of audio waits and nothing is being fed.
    private func feedIfReady() {
        let start = state.withLock { state in
            guard !state.feeding, !state.stopped, state.pending.count >= Self.stepSamples else { return false }
            state.feeding = true
            return true
        }
        if start { Task { await self.feed() } }
    }

    /// Hands all pending audio to the analyzer as one piece, when a slot is free; then the next piece, if one is due.
    private func feed() async {
        guard let slot = limiter.tryAcquire() else {
            state.withLock { $0.feeding = false }
            return
        }
        let (piece, context) = state.withLock { state in
            defer { state.pending = []; state.context = nil }
            return (state.stopped ? [] : state.pending, state.context)
        }
        if !piece.isEmpty {
            let input = AsyncStream<AnalyzerInput> { continuation in
                continuation.yield(AnalyzerInput(buffer: MonoAudio.buffer(piece)))
                continuation.finish()
            }
            do {
                if let context { try await analyzer.setContext(context) }
                _ = try await analyzer.analyzeSequence(input)
            } catch {
                state.withLock { $0.stopped = true }
            }
        }
        slot.release()
        state.withLock { $0.feeding = false }
        feedIfReady()
    }
}
