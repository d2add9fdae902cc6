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
        let clustered = clustering.labels(embeddings: embeddings, dimension: dimension)
        let rate = Double(VoiceActivityDetection.sampleRate)
        let times = windows.map { (start: Double($0.lowerBound) / rate, end: Double($0.upperBound) / rate) }
        let (turns, original) = SpeakerTurns.relabelByFirstAppearance(SpeakerTurns.turns(windows: times, labels: clustered.labels))
        let byLabel = SpeakerClustering.centroids(embeddings: embeddings, dimension: dimension, labels: clustered.labels)
        let centroids = original.map { $0 < byLabel.count ? byLabel[$0] : [Float](repeating: 0, count: dimension) }
        return Result(turns: turns, speakerCount: original.count, shortfall: clustered.shortfall, centroids: centroids)
    }
}
