import Foundation
import SpeechAssets
import SpeechAudio
import SpeechEngine

/// Runs a `SpeakerDetector`: its audio through `LiveSpeakerLabelling`, each stretch labelled reported as a result.
actor SpeakerDetectorProcessor: ModuleProcessor {
    nonisolated let store: ModelStore
    private let options: SpeakerDetector.Options
    private let output: @Sendable (SpeakerDetector.Result) -> Void
    private let end: @Sendable ((any Error)?) -> Void
    private var labelling: LiveSpeakerLabelling?
    /// Results cover the timeline up to this sample.
    private var reportedThrough: Int64?
    private var finished = false

    private let executor = EngineExecutor(label: "openspeech.speakers")
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    init(options: SpeakerDetector.Options, store: ModelStore, output: @escaping @Sendable (SpeakerDetector.Result) -> Void,
         end: @escaping @Sendable ((any Error)?) -> Void) {
        self.options = options
        self.store = store
        self.output = output
        self.end = end
    }

    func prepare(context: AnalysisContext, retention: SpeechAnalyzer.Options.ModelRetention) async throws {
        guard labelling == nil, !finished else { return }
        labelling = try LiveSpeakerLabelling.installed(in: store, maxSpeakers: options.maxSpeakers, threads: options.threads)
    }

    func append(_ samples: [Float], at start: Int64) async throws {
        guard !finished, let labelling else { return }
        report(labelling.append(samples, at: start))
    }

    /// At the end of the input (a finalization through everything received): labels what was held back and the audio
    /// after the last complete window.
    func finalize(through endSample: Int64?) async throws {
        guard !finished, let labelling else { return }
        if let endSample, endSample < labelling.received { return }
        report(labelling.finish())
    }

    func cancel(before start: Int64) async {}

    var resultsFinalThrough: Int64? { reportedThrough }

    func setContext(_ context: AnalysisContext) async {}

    func finish(throwing error: (any Error)?) async {
        guard !finished else { return }
        finished = true
        labelling = nil
        end(error)
    }

    private func report(_ stretches: [LiveSpeakerLabelling.Stretch]) {
        for stretch in stretches {
            let start = CMTime(value: stretch.range.lowerBound, timescale: 16_000)
            let end = CMTime(value: stretch.range.upperBound, timescale: 16_000)
            output(SpeakerDetector.Result(range: CMTimeRange(start: start, end: end), resultsFinalizationTime: end,
                                          speakerNumber: stretch.speaker.map { $0 + 1 }))
            reportedThrough = stretch.range.upperBound
        }
    }
}
