import Foundation
import SpeechAssets
import SpeechAudio
import SpeechEngine

/// Runs a `SpeakerDetector`: scores the audio for speech, embeds each complete speech window and labels it with
/// `OnlineSpeakerClustering`, reporting the stretch each window labels. The windows lie on a grid from the first sample
/// received (restarted after skipped audio), so the labels are a function of the audio, not of buffer sizes or pacing.
actor SpeakerDetectorProcessor: ModuleProcessor {
    nonisolated let store: ModelStore
    private let options: SpeakerDetector.Options
    private let output: @Sendable (SpeakerDetector.Result) -> Void
    private let end: @Sendable ((any Error)?) -> Void

    private var embedder: SpeakerEmbedder?
    private var detector: (any VoiceActivityDetector)?
    private var clustering: OnlineSpeakerClustering
    /// The grid of the audio since the first sample or the last skip; nil before any audio.
    private var windows: LiveSpeakerWindows?
    /// The next window of the grid to label.
    private var next = 0
    /// Audio from timeline sample `bufferStart` on: from the next window's start to the end received.
    private var buffer: [Float] = []
    private var bufferStart: Int64 = 0
    /// The detector's speech probabilities of the grid's chunks from `firstChunk` on.
    private var probabilities: [Float] = []
    private var firstChunk = 0
    /// Windows labelled so far across grids (the clustering's window numbers) and the stretch of the one held back.
    private var serial = 0
    /// The stretch each window given to the clustering labels, until it is labelled.
    private var stretches: [Int: Range<Int64>] = [:]
    private var finished = false

    private let executor = EngineExecutor(label: "openspeech.speakers")
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    init(options: SpeakerDetector.Options, store: ModelStore, output: @escaping @Sendable (SpeakerDetector.Result) -> Void,
         end: @escaping @Sendable ((any Error)?) -> Void) {
        self.options = options
        self.store = store
        self.output = output
        self.end = end
        clustering = OnlineSpeakerClustering(maxSpeakers: options.maxSpeakers)
    }

    func prepare(context: AnalysisContext, retention: SpeechAnalyzer.Options.ModelRetention) async throws {
        guard embedder == nil, !finished else { return }
        guard let directory = store.installedDirectory(for: SpeakerDiarizer.embeddingModelID) else {
            throw SFSpeechError(.noModel, "The speaker-embedding model \(SpeakerDiarizer.embeddingModelID) is not installed; "
                + "install it with `openspeech models install \(SpeakerDiarizer.embeddingModelID)`.")
        }
        embedder = SpeakerEmbedder(model: try SpeakerModelCache.shared.model(in: directory))
        detector = SpeechDetector.makeVoiceActivityDetector(store: store).0
    }

    func append(_ samples: [Float], at start: Int64) async throws {
        guard !finished, embedder != nil, let detector else { return }
        if windows == nil || start > received {
            // The first audio, or audio after a skip: the old grid's tail is labelled, and a new grid starts.
            closeGrid()
            windows = LiveSpeakerWindows(origin: start)
            next = 0
            buffer = []
            bufferStart = start
            probabilities = []
            firstChunk = 0
            detector.reset()
        }
        // Audio that overlaps what was received (it should not) is ignored up to the end received.
        let skip = Int(max(0, received - start))
        guard skip < samples.count else { return }
        let fresh = samples[skip...]
        buffer += fresh
        fresh.withUnsafeBufferPointer { detector.process($0, appendingTo: &probabilities) }
        labelCompleteWindows()
    }

    /// At the end of the input (a finalization through everything received): labels what was held back and the audio
    /// after the last complete window.
    func finalize(through endSample: Int64?) async throws {
        guard !finished else { return }
        if let endSample, endSample < received { return }
        closeGrid()
    }

    func cancel(before start: Int64) async {}

    /// Everything before the next window's stretch is labelled or silence.
    var resultsFinalThrough: Int64? { windows.map { $0.labelled(by: next).lowerBound } }

    func setContext(_ context: AnalysisContext) async {}

    func finish(throwing error: (any Error)?) async {
        guard !finished else { return }
        finished = true
        embedder = nil
        detector = nil
        end(error)
    }

    /// The end of the audio received (exclusive).
    private var received: Int64 { bufferStart + Int64(buffer.count) }

    /// Labels the windows the audio received completes, dropping the audio and scores before the next window.
    private func labelCompleteWindows() {
        guard let windows else { return }
        let complete = windows.completeCount(through: received)
        while next < complete {
            labelWindow(next, length: LiveSpeakerWindows.length, stretch: windows.labelled(by: next))
            next += 1
        }
        let keepFrom = windows.start(of: next)
        if keepFrom > bufferStart {
            buffer.removeFirst(Int(keepFrom - bufferStart))
            bufferStart = keepFrom
        }
        let chunk = Int((keepFrom - windows.origin) / Int64(VoiceActivityDetection.chunkLength))
        if chunk > firstChunk {
            probabilities.removeFirst(min(probabilities.count, chunk - firstChunk))
            firstChunk = chunk
        }
    }

    /// Labels the audio after the grid's last complete window, through the end received, by what there is of the next
    /// window (speech when it is at least half a window and mostly speech), and what is held back.
    private func closeGrid() {
        guard let windows else { return }
        let from = windows.labelled(by: next).lowerBound
        if from < received {
            let stretch = from..<received
            let length = Int(received - windows.start(of: next))
            labelWindow(next, length: length >= LiveSpeakerWindows.length / 2 ? length : 0, stretch: stretch)
            next += 1
        }
        emit(clustering.flush())
    }

    /// Labels window `index` of the grid from its first `length` samples: its speaker when it is speech, else no one.
    private func labelWindow(_ index: Int, length: Int, stretch: Range<Int64>) {
        guard let windows, let embedder else { return }
        if length > 0, windows.isSpeech(index, probabilities: probabilities, firstChunk: firstChunk, length: length) {
            let offset = Int(windows.start(of: index) - bufferStart)
            stretches[serial] = stretch
            let labels = clustering.add(embedder.embeddings(samples: buffer, ranges: [offset..<(offset + length)],
                                                            threads: options.threads), window: serial)
            serial += 1
            emit(labels)
        } else {
            emit(clustering.flush())
            report(stretch, speaker: nil)
        }
    }

    private func emit(_ labels: [OnlineSpeakerClustering.Label]) {
        for label in labels {
            if let stretch = stretches.removeValue(forKey: label.window) { report(stretch, speaker: label.speaker) }
        }
    }

    private func report(_ stretch: Range<Int64>, speaker: Int?) {
        let start = CMTime(value: stretch.lowerBound, timescale: 16_000)
        let end = CMTime(value: stretch.upperBound, timescale: 16_000)
        output(SpeakerDetector.Result(range: CMTimeRange(start: start, end: end), resultsFinalizationTime: end,
                                      speakerNumber: speaker.map { $0 + 1 }))
    }
}
