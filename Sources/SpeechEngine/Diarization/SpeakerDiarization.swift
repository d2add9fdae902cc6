/// Who speaks when in a recording, given where its speech is: CAM++ embeddings of 1.5 s windows through the speech
/// (`DiarizationWindows`), clustered across the recording (`SpeakerClustering`), turned into turns (`SpeakerTurns`),
/// speakers numbered by first appearance. Speech too short for a window pair is one speaker, never an error.
package struct SpeakerDiarization: Sendable {
    package struct Result: Sendable, Equatable {
        /// In time order; speaker numbers from 0 by first appearance.
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

    package init(embedder: SpeakerEmbedder, clustering: SpeakerClustering = SpeakerClustering()) {
        self.embedder = embedder
        self.clustering = clustering
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
        let (turns, original) = SpeakerTurns.relabelByFirstAppearance(SpeakerTurns.turns(windows: times, labels: clustered.labels))
        let byLabel = SpeakerClustering.centroids(embeddings: embeddings, dimension: dimension, labels: clustered.labels)
        let centroids = original.map { $0 < byLabel.count ? byLabel[$0] : [Float](repeating: 0, count: dimension) }
        let shortfall = (capped ?? 0) + (clustered.shortfall ?? 0)
        return Result(turns: turns, speakerCount: original.count, shortfall: shortfall > 0 ? shortfall : nil, centroids: centroids)
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
