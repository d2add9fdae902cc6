import Foundation
import SpeechAudio
import SpeechEngine

/// Runs a `SpeechDetector`'s audio through voice activity detection and reports speech regions and the silences
/// between them as final results.
actor SpeechDetectorProcessor: ModuleProcessor {
    private let segmentation: SpeechSegmentationOptions
    private let reportResults: Bool
    private let output: @Sendable (SpeechDetector.Result) -> Void
    private let end: @Sendable ((any Error)?) -> Void
    private var tracker: SpeechRegionTracker?
    /// Results cover the timeline up to this sample.
    private var reportedThrough: Int64?
    private var finished = false

    init(segmentation: SpeechSegmentationOptions, reportResults: Bool,
         output: @escaping @Sendable (SpeechDetector.Result) -> Void, end: @escaping @Sendable ((any Error)?) -> Void) {
        self.segmentation = segmentation
        self.reportResults = reportResults
        self.output = output
        self.end = end
    }

    func prepare(context: AnalysisContext, retention: SpeechAnalyzer.Options.ModelRetention) async throws {
        guard tracker == nil, !finished else { return }
        tracker = SpeechRegionTracker(detector: SpeechDetector.makeVoiceActivityDetector(), options: segmentation)
    }

    func append(_ samples: [Float], at start: Int64) async throws {
        guard !finished, let tracker else { return }
        if reportedThrough == nil { reportedThrough = start }
        report(tracker.append(samples, at: start), through: nil)
    }

    /// Closes the speech in progress and reports everything received (finalizing part of the audio does the same).
    func finalize(through endSample: Int64?) async throws {
        guard !finished, let tracker, tracker.origin != nil else { return }
        report(tracker.closeOpenRegion(), through: tracker.end)
    }

    func cancel(before start: Int64) async {}

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
