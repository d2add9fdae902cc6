import Foundation
import SpeechAssets
import SpeechAudio
import SpeechEngine

/// Runs a `SpeechDetector`'s audio through voice activity detection and reports speech regions and the silences
/// between them as final results; the regions also go to `regions`, which transcribers in the same analyzer read.
actor SpeechDetectorProcessor: ModuleProcessor {
    private let segmentation: SpeechSegmentationOptions
    /// Where the detector's model is looked for; nil: the default store (`$OPENSPEECH_HOME`...).
    private let modelStore: ModelStore?
    /// Makes the voice activity detector instead of the store's model, when it gives one.
    private let voiceActivity: (@Sendable () -> (any VoiceActivityDetector, SpeechDetector.Backend)?)?
    /// The speech found so far, for the transcribers' gates.
    let regions: SpeechRegionLog
    nonisolated var publishedSpeechRegions: SpeechRegionLog? { regions }
    /// The detector running, once prepared.
    private(set) var backend: SpeechDetector.Backend?
    private let reportResults: Bool
    private let output: @Sendable (SpeechDetector.Result) -> Void
    private let end: @Sendable ((any Error)?) -> Void
    private var tracker: SpeechRegionTracker?
    /// Results cover the timeline up to this sample.
    private var reportedThrough: Int64?
    private var finished = false

    /// The engine's work runs on a queue of this module's own, not on the cooperative pool.
    private let executor = EngineExecutor(label: "openspeech.detector")
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    init(segmentation: SpeechSegmentationOptions, reportResults: Bool, modelStore: ModelStore?,
         voiceActivity: (@Sendable () -> (any VoiceActivityDetector, SpeechDetector.Backend)?)?, regions: SpeechRegionLog,
         output: @escaping @Sendable (SpeechDetector.Result) -> Void, end: @escaping @Sendable ((any Error)?) -> Void) {
        self.segmentation = segmentation
        self.modelStore = modelStore
        self.voiceActivity = voiceActivity
        self.regions = regions
        self.reportResults = reportResults
        self.output = output
        self.end = end
    }

    func prepare(context: AnalysisContext, retention: SpeechAnalyzer.Options.ModelRetention) async throws {
        guard tracker == nil, !finished else { return }
        let (detector, backend) = voiceActivity?() ?? SpeechDetector.makeVoiceActivityDetector(store: modelStore ?? ModelStore())
        self.backend = backend
        tracker = SpeechRegionTracker(detector: detector, options: segmentation)
    }

    func append(_ samples: [Float], at start: Int64) async throws {
        guard !finished, let tracker else { return }
        if reportedThrough == nil { reportedThrough = start }
        let closed = tracker.append(samples, at: start)
        regions.record(closed: closed, from: tracker)
        report(closed, through: nil)
    }

    /// Closes the speech in progress and reports everything received (finalizing part of the audio does the same).
    func finalize(through endSample: Int64?) async throws {
        guard !finished, let tracker, tracker.origin != nil else { return }
        let closed = tracker.closeOpenRegion()
        regions.record(closed: closed, from: tracker)
        report(closed, through: tracker.end)
    }

    func cancel(before start: Int64) async {}

    var resultsFinalThrough: Int64? { reportResults ? reportedThrough : nil }

    func setContext(_ context: AnalysisContext) async {}

    func finish(throwing error: (any Error)?) async {
        guard !finished else { return }
        finished = true
        tracker = nil
        end(error)
    }

    /// Reports the silence before each region and the region, then silence through `through`.
    private func report(_ regions: [Range<Int64>], through: Int64?) {
        guard reportResults, var covered = reportedThrough else { return }
        for region in regions where region.upperBound > covered {
            if region.lowerBound > covered { emit(covered..<region.lowerBound, speech: false) }
            emit(max(region.lowerBound, covered)..<region.upperBound, speech: true)
            covered = region.upperBound
        }
        if let through, through > covered {
            emit(covered..<through, speech: false)
            covered = through
        }
        reportedThrough = covered
    }

    private func emit(_ range: Range<Int64>, speech: Bool) {
        let start = CMTime(value: range.lowerBound, timescale: 16_000)
        let end = CMTime(value: range.upperBound, timescale: 16_000)
        output(SpeechDetector.Result(range: CMTimeRange(start: start, end: end), resultsFinalizationTime: end,
                                     speechDetected: speech))
    }
}
