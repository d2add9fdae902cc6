import Foundation
import SpeechAssets
import SpeechAudio
import SpeechEngine
import Synchronization

/// A transcriber's adapter to the analyzer: holds its models (`ModelLease`), the analysis context's prompt
/// (`ContextPrompt`) and the detector's regions, and hands the audio to its strategy, final-only
/// (`FinalOnlyStrategy`) or volatile (`LocalAgreementStrategy`), which turns it into results.
actor TranscriptionProcessor: ModuleProcessor {
    static let rate = 16_000.0

    let settings: Settings
    private let output: @Sendable (SpeechTranscriber.Result) -> Void
    private let end: @Sendable ((any Error)?) -> Void

    private var lease: ModelLease?
    /// `lease`'s model, for `plannedModelID` outside the actor.
    private let leasedModelID = Mutex<String?>(nil)
    private var strategy: (any TranscriptionStrategy)?
    /// The context's strings (all tags): the phrases the engine's contextual biasing favours and prompts may start with.
    private var contextPhrases: [String] = []
    private var prompt: ContextPrompt?
    /// The speech regions of a `SpeechDetector` sharing the analyzer, if one does: audio it calls silence gets no text.
    private var speechRegions: SpeechRegionLog?
    private var finished = false
    /// What the strategy reported when the processor finished (the strategy is released then, with the models).
    private var ended: (finalThrough: Int64, samplesTranscribed: Int, longestWindow: Int) = (0, 0, 0)
    /// The timeline position after the last audio received.
    private var received: Int64 = 0

    /// The engine's work runs on a queue of this module's own, not on the cooperative pool.
    private let executor = EngineExecutor(label: "openspeech.transcriber")
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    init(settings: Settings, output: @escaping @Sendable (SpeechTranscriber.Result) -> Void,
         end: @escaping @Sendable ((any Error)?) -> Void) {
        self.settings = settings
        self.output = output
        self.end = end
    }

    /// The installed folder of the model the plan for a locale (or an explicit model id) runs in `store`, nil if
    /// there is none.
    static func modelDirectory(locale: Locale, modelID: String?, store: ModelStore) -> URL? {
        let request = TranscriptionPlan.Request(locale: locale, modelID: modelID, task: .transcribe, detectsLanguage: false,
                                                detectsLanguagePerWindow: false, detectsSpeech: false)
        return (try? TranscriptionPlan(request, store: store)).flatMap { store.installedDirectory(for: $0.modelID) }
    }

    /// The catalog id of the model this transcriber runs: once prepared, the one it loaded; before, the one the plan
    /// for these settings chooses as the models are installed now (nil: none).
    nonisolated var plannedModelID: String? {
        leasedModelID.withLock { $0 } ?? (try? TranscriptionPlan(settings.planRequest, store: settings.store))?.modelID
    }

    // MARK: ModuleProcessor

    func prepare(context: AnalysisContext, retention: SpeechAnalyzer.Options.ModelRetention) async throws {
        setContext(context)
        guard lease == nil else { return }
        try await start(with: ModelLease.acquire(for: settings, retention: retention))
    }

    /// Holds `lease` and makes the strategy that decodes with it.
    private func start(with lease: ModelLease) {
        self.lease = lease
        leasedModelID.withLock { $0 = lease.modelID }
        let session = lease.session
        let prompt = ContextPrompt(phrases: contextPhrases, encode: { session.encode($0) })
        self.prompt = prompt
        let output = self.output
        strategy = settings.volatile
            ? LocalAgreementStrategy(decoder: session, previewDecoder: lease.previewSession, settings: settings,
                                     prompt: prompt, speechRegions: speechRegions, output: output)
            : FinalOnlyStrategy(session: session, settings: settings, prompt: prompt, speechRegions: speechRegions,
                                output: output)
    }

    /// Follows the speech regions of a `SpeechDetector` among the analyzer's modules (nil: there is none). Final-only
    /// transcription follows them from its next stretch of audio on.
    func follow(speechRegions regions: SpeechRegionLog?) {
        speechRegions = regions
        strategy?.speechRegions = regions
    }

    /// The detector regions this transcriber follows, if a detector shares the analyzer.
    var gateRegions: SpeechRegionLog? { speechRegions }

    func setContext(_ context: AnalysisContext) {
        contextPhrases = context.allContextualStrings
        prompt?.set(phrases: contextPhrases)
    }

    func append(_ samples: [Float], at start: Int64) async throws {
        guard !finished else { return }
        guard let strategy else { throw notPrepared() }
        if start > received && received > 0 {
            // Skipped audio: what came before is complete.
            try strategy.finalize(through: received)
            strategy.skip(to: start)
        }
        if received == 0 && start > 0 { strategy.skip(to: start) }
        received = start + Int64(samples.count)
        try strategy.append(samples, at: start)
    }

    func finalize(through endSample: Int64?) async throws {
        guard !finished, let strategy else { return }
        try strategy.finalize(through: min(endSample ?? received, received))
    }

    func cancel(before start: Int64) async {
        strategy?.cancel(before: start)
    }

    func finish(throwing error: (any Error)?) async {
        guard !finished else { return }
        finished = true
        ended = (resultsFinalThrough ?? 0, offlineSamplesTranscribed, longestWindow)
        strategy = nil
        prompt = nil
        await lease?.release()
        lease = nil
        end(error)
    }

    var resultsFinalThrough: Int64? { strategy?.finalThrough ?? ended.finalThrough }

    /// Samples final-only transcription gave the engine (with a detector, only its speech); tests read it.
    var offlineSamplesTranscribed: Int {
        strategy.map { ($0 as? FinalOnlyStrategy)?.samplesTranscribed ?? 0 } ?? ended.samplesTranscribed
    }

    /// The most audio one decoding of the volatile window heard, in seconds; tests read it.
    var longestWindowSeconds: Double { Double(longestWindow) / Self.rate }

    private var longestWindow: Int {
        strategy.map { ($0 as? LocalAgreementStrategy)?.longestWindow ?? 0 } ?? ended.longestWindow
    }

    private func notPrepared() -> SFSpeechError {
        SFSpeechError(.noModel, "The transcriber's model is not loaded; the analyzer prepares it before analysis.")
    }
}
