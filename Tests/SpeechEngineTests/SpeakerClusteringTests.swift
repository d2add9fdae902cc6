import Foundation
import Testing
@testable import SpeechEngine

/// Speaker clustering on synthetic embeddings: windows drawn around random unit centroids (speakers) with noise
/// spread like CAM++'s (one speaker's windows ~0.6–0.8 cosine to each other, different speakers ~0.2).
@Suite struct SpeakerClusteringTests {
    static let dimension = 192

    /// Speakers' centroids: a shared direction plus each speaker's own, cosine about 0.3 between speakers.
    static func centroids(_ count: Int, generator: inout SeededGenerator) -> [[Float]] {
        let shared = generator.unitVector(dimension)
        return (0..<count).map { _ in
            let own = generator.unitVector(dimension)
            let x = zip(shared, own).map { 0.55 * $0 + 0.83 * $1 }
            let length = x.map { $0 * $0 }.reduce(0, +).squareRoot()
            return x.map { $0 / length }
        }
    }

    /// A window of `centroid` with noise of random strength.
    static func window(_ centroid: [Float], generator: inout SeededGenerator) -> [Float] {
        let sigma = Float.random(in: 0.035...0.06, using: &generator)
        return centroid.map { $0 + sigma * generator.gaussian() }
    }

    /// `speakers` taking turns of 3–10 windows, `perSpeaker` windows each (all speakers heard); embeddings and truth.
    static func conversation(speakers: Int, perSpeaker: Int, seed: UInt64) -> (embeddings: [Float], truth: [Int]) {
        var generator = SeededGenerator(seed: seed)
        let centers = centroids(speakers, generator: &generator)
        var left = [Int](repeating: perSpeaker, count: speakers)
        var embeddings: [Float] = [], truth: [Int] = []
        var speaker = 0
        while left.contains(where: { $0 > 0 }) {
            let run = min(left[speaker], Int.random(in: 3...10, using: &generator))
            for _ in 0..<run {
                embeddings += window(centers[speaker], generator: &generator)
                truth.append(speaker)
            }
            left[speaker] -= run
            let others = (0..<speakers).filter { $0 != speaker && left[$0] > 0 }
            speaker = others.randomElement(using: &generator) ?? speaker
        }
        return (embeddings, truth)
    }

    /// Whether every cluster of `labels` holds windows of one true speaker only.
    static func isPure(_ labels: [Int], truth: [Int]) -> Bool {
        var owner: [Int: Int] = [:]
        for (label, speaker) in zip(labels, truth) {
            if let known = owner[label], known != speaker { return false }
            owner[label] = speaker
        }
        return true
    }

    @Test("finds the speakers and who said each window", arguments: [2, 3, 4])
    func recoversSpeakers(count: Int) {
        let (embeddings, truth) = Self.conversation(speakers: count, perSpeaker: 30, seed: UInt64(count))
        let result = SpeakerClustering().labels(embeddings: embeddings, dimension: Self.dimension)
        #expect(result.speakerCount == count)
        #expect(result.labels == SpeakerClustering.byFirstAppearance(truth))
        #expect(result.shortfall == nil)
    }

    @Test("an exact count above the natural one splits a speaker, and is met")
    func exactCountAboveSplits() {
        let (embeddings, truth) = Self.conversation(speakers: 2, perSpeaker: 30, seed: 11)
        let result = SpeakerClustering(speakers: 3).labels(embeddings: embeddings, dimension: Self.dimension)
        #expect(result.speakerCount == 3)
        #expect(Set(result.labels) == [0, 1, 2])
        #expect(result.shortfall == nil)
        #expect(Self.isPure(result.labels, truth: truth))
    }

    @Test("an exact count below the natural one merges speakers")
    func exactCountBelowMerges() {
        let (embeddings, _) = Self.conversation(speakers: 3, perSpeaker: 20, seed: 12)
        let result = SpeakerClustering(speakers: 2).labels(embeddings: embeddings, dimension: Self.dimension)
        #expect(result.speakerCount == 2)
        #expect(result.shortfall == nil)
    }

    @Test("more speakers asked for than windows: one per window, and the shortfall said")
    func countBeyondWindows() {
        let (embeddings, _) = Self.conversation(speakers: 3, perSpeaker: 1, seed: 13)
        let exact = SpeakerClustering(speakers: 5).labels(embeddings: embeddings, dimension: Self.dimension)
        #expect(exact.labels == [0, 1, 2])
        #expect(exact.speakerCount == 3)
        #expect(exact.shortfall == 2)
        let atLeast = SpeakerClustering(minSpeakers: 4).labels(embeddings: embeddings, dimension: Self.dimension)
        #expect(atLeast.labels == [0, 1, 2] && atLeast.shortfall == 1)
    }

    @Test("minimum and maximum counts bound the threshold's answer")
    func boundsApply() {
        let (four, _) = Self.conversation(speakers: 4, perSpeaker: 20, seed: 14)
        #expect(SpeakerClustering(maxSpeakers: 2).labels(embeddings: four, dimension: Self.dimension).speakerCount == 2)
        #expect(SpeakerClustering(maxSpeakers: 6).labels(embeddings: four, dimension: Self.dimension).speakerCount == 4)
        let (two, truth) = Self.conversation(speakers: 2, perSpeaker: 30, seed: 15)
        let atLeast = SpeakerClustering(minSpeakers: 3).labels(embeddings: two, dimension: Self.dimension)
        #expect(atLeast.speakerCount == 3 && atLeast.shortfall == nil)
        #expect(Self.isPure(atLeast.labels, truth: truth))
        #expect(SpeakerClustering(minSpeakers: 1, maxSpeakers: 6).labels(embeddings: two, dimension: Self.dimension)
            .speakerCount == 2)
    }

    @Test("clusters smaller than minClusterSize fold into the nearest large one")
    func minorClustersFold() {
        var (embeddings, truth) = Self.conversation(speakers: 2, perSpeaker: 20, seed: 16)
        var generator = SeededGenerator(seed: 99)
        // Two stray windows unlike either speaker, inside speaker 0's first run.
        for position in [2, 3] {
            embeddings.insert(contentsOf: generator.unitVector(Self.dimension), at: position * Self.dimension)
            truth.insert(-1, at: position)
        }
        let folded = SpeakerClustering().labels(embeddings: embeddings, dimension: Self.dimension)
        #expect(folded.speakerCount == 2)
        let kept = zip(folded.labels, truth).filter { $0.1 >= 0 }
        #expect(kept.map(\.0) == SpeakerClustering.byFirstAppearance(kept.map(\.1)))
        let unfolded = SpeakerClustering(minClusterSize: 1).labels(embeddings: embeddings, dimension: Self.dimension)
        #expect(unfolded.speakerCount == 4)
    }

    @Test("folding stops at the speakers asked for")
    func foldingKeepsRequestedSpeakers() {
        var generator = SeededGenerator(seed: 17)
        let centers = Self.centroids(2, generator: &generator)
        let truth = [Int](repeating: 0, count: 10) + [1, 1, 1] + [Int](repeating: 0, count: 10)
        let embeddings = truth.flatMap { Self.window(centers[$0], generator: &generator) }
        #expect(SpeakerClustering().labels(embeddings: embeddings, dimension: Self.dimension).labels
            == [Int](repeating: 0, count: truth.count))
        #expect(SpeakerClustering(minSpeakers: 2).labels(embeddings: embeddings, dimension: Self.dimension).labels == truth)
        #expect(SpeakerClustering(speakers: 2).labels(embeddings: embeddings, dimension: Self.dimension).labels == truth)
    }

    @Test("too few windows is never an error: none, one, two of different speakers")
    func fewWindows() {
        let clustering = SpeakerClustering()
        #expect(clustering.labels(embeddings: [], dimension: Self.dimension) == .init(labels: [], speakerCount: 0, shortfall: nil))
        #expect(SpeakerClustering(speakers: 2).labels(embeddings: [], dimension: Self.dimension).shortfall == 2)
        var generator = SeededGenerator(seed: 18)
        let one = generator.unitVector(Self.dimension)
        #expect(clustering.labels(embeddings: one, dimension: Self.dimension).labels == [0])
        let two = one + generator.unitVector(Self.dimension)
        // Too little speech to tell speakers apart: one speaker, unless more are asked for.
        #expect(clustering.labels(embeddings: two, dimension: Self.dimension).labels == [0, 0])
        #expect(SpeakerClustering(minClusterSize: 1).labels(embeddings: two, dimension: Self.dimension).labels == [0, 1])
        #expect(SpeakerClustering(speakers: 2).labels(embeddings: two, dimension: Self.dimension).labels == [0, 1])
    }

    @Test("zero and non-finite embeddings are labelled, not trusted")
    func degenerateEmbeddings() {
        var (embeddings, _) = Self.conversation(speakers: 2, perSpeaker: 10, seed: 19)
        embeddings += [Float](repeating: 0, count: Self.dimension)
        embeddings += [Float](repeating: .nan, count: Self.dimension)
        embeddings += [Float](repeating: .infinity, count: Self.dimension)
        let result = SpeakerClustering().labels(embeddings: embeddings, dimension: Self.dimension)
        #expect(result.labels.count == 23)
        #expect(result.speakerCount == 2)
    }

    @Test("the same embeddings give the same labels, numbered by first appearance")
    func deterministic() {
        let (embeddings, _) = Self.conversation(speakers: 3, perSpeaker: 25, seed: 20)
        let first = SpeakerClustering().labels(embeddings: embeddings, dimension: Self.dimension)
        #expect(SpeakerClustering().labels(embeddings: embeddings, dimension: Self.dimension) == first)
        #expect(first.labels == SpeakerClustering.byFirstAppearance(first.labels))
        // Identical windows: every similarity ties.
        let same = [Float]((0..<(12 * Self.dimension)).map { Float($0 % Self.dimension) })
        #expect(SpeakerClustering().labels(embeddings: same, dimension: Self.dimension).labels == [Int](repeating: 0, count: 12))
        #expect(SpeakerClustering(speakers: 3, minClusterSize: 1).labels(embeddings: same, dimension: Self.dimension)
            == SpeakerClustering(speakers: 3, minClusterSize: 1).labels(embeddings: same, dimension: Self.dimension))
    }

    @Test("the threshold decides merging: everything at −1, nothing above 1")
    func thresholdExtremes() {
        let (embeddings, _) = Self.conversation(speakers: 3, perSpeaker: 8, seed: 21)
        #expect(SpeakerClustering(threshold: -1).labels(embeddings: embeddings, dimension: Self.dimension).speakerCount == 1)
        #expect(SpeakerClustering(threshold: 1.01, minClusterSize: 1).labels(embeddings: embeddings, dimension: Self.dimension)
            .labels == Array(0..<24))
    }

    @Test("more windows than one matrix holds are clustered in chunks, with the same result here")
    func chunked() {
        let (embeddings, truth) = Self.conversation(speakers: 3, perSpeaker: 80, seed: 22)
        let whole = SpeakerClustering().labels(embeddings: embeddings, dimension: Self.dimension)
        let chunks = SpeakerClustering(matrixLimit: 60).labels(embeddings: embeddings, dimension: Self.dimension)
        #expect(chunks.labels == SpeakerClustering.byFirstAppearance(truth))
        #expect(chunks == whole)
        let exact = SpeakerClustering(speakers: 4, matrixLimit: 60).labels(embeddings: embeddings, dimension: Self.dimension)
        #expect(exact.speakerCount == 4 && Self.isPure(exact.labels, truth: truth))
    }

    @Test("a new window is assigned to its speaker's centroid")
    func assignsToNearestCentroid() throws {
        let (embeddings, truth) = Self.conversation(speakers: 3, perSpeaker: 20, seed: 23)
        let labels = SpeakerClustering().labels(embeddings: embeddings, dimension: Self.dimension).labels
        let centroids = SpeakerClustering.centroids(embeddings: embeddings, dimension: Self.dimension, labels: labels)
        #expect(centroids.count == 3)
        // A fresh window near speaker `truth[i]`'s windows: the first window of that speaker, with a little more noise.
        var generator = SeededGenerator(seed: 24)
        for speaker in 0..<3 {
            let index = try #require(truth.firstIndex(of: speaker))
            let row = Array(embeddings[(index * Self.dimension)..<((index + 1) * Self.dimension)])
            let fresh = Self.window(row, generator: &generator)
            let assigned = try #require(SpeakerClustering.assign(fresh, centroids: centroids))
            #expect(assigned.index == labels[index])
            #expect(assigned.similarity > 0.6)
        }
        #expect(SpeakerClustering.assign(centroids[0], centroids: []) == nil)
        let zero = try #require(SpeakerClustering.assign([Float](repeating: 0, count: Self.dimension), centroids: centroids))
        #expect(zero.index == 0 && zero.similarity == 0)
    }
}

extension SeededGenerator {
    /// A standard normal value (Box–Muller).
    mutating func gaussian() -> Float {
        // u in (0, 1], v in [0, 1).
        let u = (Double(next() >> 11) + 1) / 0x1p53, v = Double(next() >> 11) / 0x1p53
        return Float((-2 * log(u)).squareRoot() * cos(2 * Double.pi * v))
    }

    mutating func unitVector(_ dimension: Int) -> [Float] {
        let x = (0..<dimension).map { _ in gaussian() }
        let length = x.map { $0 * $0 }.reduce(0, +).squareRoot()
        return x.map { $0 / length }
    }
}
