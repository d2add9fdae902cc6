/// Who speaks when in a recording, given where its speech is: CAM++ embeddings of 1.5 s windows through the speech
/// (`DiarizationWindows`), clustered across the recording (`SpeakerClustering`), turned into turns (`SpeakerTurns`);
/// with a segmentation model, its overlap regions (in `overlapWindows`) add a second speaker's turns
/// (`OverlapAssignment`); speakers numbered by first appearance. Speech too short for a window pair is one speaker,
/// never an error.
package struct SpeakerDiarization: Sendable {
    package struct Result: Sendable, Equatable {
        /// In time order; speaker numbers from 0 by first appearance. Turns of different speakers overlap where two
        /// people speak at once (only with a segmentation model).
        package var turns: [SpeakerTurn]
        /// Speakers found (at least one per turn's speaker; 0 without speech).
        package var speakerCount: Int
        /// Speakers asked for (`SpeakerClustering.speakers`/`minSpeakers`) that the speech could not supply.
        package var shortfall: Int?
        /// Each speaker's mean embedding, by speaker number: what known speakers' references are matched against.
        package var centroids: [[Float]]
    }

    package let embedder: SpeakerEmbedder
    package var clustering: SpeakerClustering
    /// Where two people speak at once; nil: one speaker at a time.
    package let segmentation: SpeakerSegmentationModel?
    package var overlapWindows: OverlapWindows
    package var overlap: OverlapAssignment

    /// `overlapWindows` by default: one window at each change of speaker across at most 1 s of silence. On the nine
    /// benchmark conversations (1,440 s), windows every 5 s through the whole file found little more overlap, but also
    /// 0.6 s of overlap where there was none (DER 3.22 % against 3.17 %), at three times the cost; changes across up to
    /// 2 s found the same overlap as up to 1 s with more windows, up to 0.5 s a quarter less, up to 0.1 s 60 % less.
    package static let defaultOverlapWindows = OverlapWindows.atChanges(maximumGap: 1)

    package init(embedder: SpeakerEmbedder, segmentation: SpeakerSegmentationModel? = nil,
                 clustering: SpeakerClustering = SpeakerClustering(),
                 overlapWindows: OverlapWindows = SpeakerDiarization.defaultOverlapWindows,
                 overlap: OverlapAssignment = OverlapAssignment()) {
        self.embedder = embedder
        self.segmentation = segmentation
        self.clustering = clustering
        self.overlapWindows = overlapWindows
        self.overlap = overlap
    }

    /// The turns of the 16 kHz `samples`, whose speech is `speech`.
    package func diarize(samples: [Float], speech: [SpeechRegion], threads: Int = 1) -> Result {
        let windows = DiarizationWindows(speech: speech).ranges
        guard !windows.isEmpty else { return Result(turns: [], speakerCount: 0, shortfall: nil, centroids: []) }
        let dimension = CAMPlusPlus.embeddingSize
        let embeddings = embedder.embeddings(samples: samples, ranges: windows, threads: threads)
        let (clustering, capped) = self.clustering.supported(by: windows.count)
        let clustered = clustering.labels(embeddings: embeddings, dimension: dimension)
        let rate = Double(VoiceActivityDetection.sampleRate)
        let times = windows.map { (start: Double($0.lowerBound) / rate, end: Double($0.upperBound) / rate) }
        var found = SpeakerTurns.turns(windows: times, labels: clustered.labels)
        if let segmentation {
            let regions = Self.overlaps(samples: samples, windows: overlapWindows.starts(turns: found, samples: samples.count),
                                        model: segmentation, threads: threads)
            found = overlap.turns(found, overlaps: regions)
        }
        let (turns, original) = SpeakerTurns.relabelByFirstAppearance(found)
        let byLabel = SpeakerClustering.centroids(embeddings: embeddings, dimension: dimension, labels: clustered.labels)
        let centroids = original.map { $0 < byLabel.count ? byLabel[$0] : [Float](repeating: 0, count: dimension) }
        let shortfall = (capped ?? 0) + (clustered.shortfall ?? 0)
        return Result(turns: turns, speakerCount: original.count, shortfall: shortfall > 0 ? shortfall : nil, centroids: centroids)
    }
}

extension SpeakerDiarization {
    /// Windows per model call: a few of the model's groups, a few megabytes of audio.
    static let overlapBatch = 16

    /// The stretches (seconds) where the segmentation model, over the 10 s windows from `windows` (zero-padded past
    /// the end), counts two speakers at once: each run of frames counted 2 or more, from half a frame step before its
    /// first frame's centre to half a step after its last's.
    static func overlaps(samples: [Float], windows: [Int], model: SpeakerSegmentationModel,
                         threads: Int) -> [(start: Double, end: Double)] {
        let length = SpeakerSegmentationModel.windowSamples
        let frames = SpeakerSegmentationModel.frameCount(samples: length), classes = SpeakerSegmentationModel.classes
        var decoded: [(start: Int, activity: PowersetActivity)] = []
        for first in stride(from: 0, to: windows.count, by: overlapBatch) {
            let batch = windows[first..<min(windows.count, first + overlapBatch)]
            var audio = [Float](repeating: 0, count: batch.count * length)
            for (index, start) in batch.enumerated() {
                let end = min(samples.count, start + length)
                if end > start { audio.replaceSubrange(index * length..<index * length + end - start, with: samples[start..<end]) }
            }
            let scores = audio.withUnsafeBufferPointer { model.logProbabilities(windows: $0, count: batch.count, threads: threads) }
            for (index, start) in batch.enumerated() {
                let rows = scores[index * frames * classes..<(index + 1) * frames * classes]
                decoded.append((start, PowersetActivity(logProbabilities: rows, frames: frames)))
            }
        }
        let step = SpeakerSegmentationModel.frameStep, centre = SpeakerSegmentationModel.frameCenter
        let rate = Double(VoiceActivityDetection.sampleRate)
        return PowersetActivity.frames(withAtLeast: 2, in: PowersetActivity.speakerCounts(windows: decoded)).map { run in
            (Double(step * run.lowerBound + centre - step / 2) / rate, Double(step * run.upperBound + centre - step / 2) / rate)
        }
    }
}

extension SpeakerClustering {
    /// These options with the speaker counts asked for capped at what `windows` windows can tell apart: a speaker
    /// needs `minClusterSize` windows (about 3 s of speech), so less speech than two speakers' is one speaker, and one
    /// person is never split to make up a count. Also the speakers asked for beyond that (nil: none).
    func supported(by windows: Int) -> (SpeakerClustering, shortfall: Int?) {
        let supportable = max(1, windows / max(1, minClusterSize))
        var capped = self
        var shortfall = 0
        if let speakers, speakers > supportable {
            shortfall = speakers - supportable
            capped.speakers = supportable
        }
        if minSpeakers > supportable {
            shortfall = max(shortfall, minSpeakers - supportable)
            capped.minSpeakers = supportable
        }
        capped.maxSpeakers = min(maxSpeakers ?? supportable, supportable)
        return (capped, shortfall > 0 ? shortfall : nil)
    }
}
