import Foundation
import Testing
@testable import SpeechEngine

/// Live speaker labelling (issue 45) without a model: the online clustering on synthetic embeddings spread like
/// CAM++'s (SpeakerClusteringTests' conversations), and the window grid.
@Suite struct OnlineSpeakerClusteringTests {
    /// All windows' labels in window order, feeding `embeddings` one row at a time, then flushing.
    static func label(_ embeddings: [Float], clustering: OnlineSpeakerClustering = OnlineSpeakerClustering())
        -> [OnlineSpeakerClustering.Label] {
        var clustering = clustering
        let dimension = SpeakerClusteringTests.dimension
        var labels: [OnlineSpeakerClustering.Label] = []
        for window in 0..<(embeddings.count / dimension) {
            labels += clustering.add(Array(embeddings[(window * dimension)..<((window + 1) * dimension)]), window: window)
        }
        return labels + clustering.flush()
    }

    @Test("every window labelled once, in window order, with its speaker, numbered by first appearance", arguments: [2, 3, 4])
    func recoversSpeakers(count: Int) {
        let (embeddings, truth) = SpeakerClusteringTests.conversation(speakers: count, perSpeaker: 30, seed: UInt64(40 + count))
        let labels = Self.label(embeddings)
        #expect(labels.map(\.window) == Array(truth.indices))
        #expect(labels.map(\.speaker) == SpeakerClustering.byFirstAppearance(truth))
    }

    @Test("a lone window like nobody goes to the nearest speaker; two like windows start a speaker, both labelled with it")
    func heldWindow() {
        var generator = SeededGenerator(seed: 7)
        let centers = SpeakerClusteringTests.centroids(3, generator: &generator)
        func window(_ speaker: Int) -> [Float] { SpeakerClusteringTests.window(centers[speaker], generator: &generator) }
        var clustering = OnlineSpeakerClustering()
        #expect(clustering.add(window(0), window: 0) == [.init(window: 0, speaker: 0)])
        #expect(clustering.add(window(0), window: 1) == [.init(window: 1, speaker: 0)])
        // A window of another voice is held, then given to speaker 0 when the next is speaker 0's again.
        #expect(clustering.add(window(1), window: 2).isEmpty)
        #expect(clustering.add(window(0), window: 3) == [.init(window: 2, speaker: 0), .init(window: 3, speaker: 0)])
        #expect(clustering.speakerCount == 1)
        // Two of the new voice: a new speaker from the first of them.
        #expect(clustering.add(window(2), window: 4).isEmpty)
        #expect(clustering.add(window(2), window: 5) == [.init(window: 4, speaker: 1), .init(window: 5, speaker: 1)])
        // A held window is labelled by a flush (speech ended), with the speaker it is most like.
        #expect(clustering.add(window(1), window: 6).isEmpty)
        #expect(clustering.flush().count == 1)
        #expect(clustering.flush().isEmpty)
    }

    @Test("at most maxSpeakers: a further voice goes to the nearest; zero and non-finite embeddings are labelled too")
    func limits() {
        let (embeddings, _) = SpeakerClusteringTests.conversation(speakers: 3, perSpeaker: 20, seed: 5)
        let capped = Self.label(embeddings, clustering: OnlineSpeakerClustering(maxSpeakers: 2))
        #expect(Set(capped.map(\.speaker)) == [0, 1])
        #expect(capped.count == 60)
        let dimension = SpeakerClusteringTests.dimension
        let odd = [Float](repeating: 0, count: dimension) + [Float](repeating: .nan, count: dimension)
            + Array(embeddings.prefix(dimension))
        #expect(Self.label(odd).map(\.speaker) == [0, 0, 0])
    }

    @Test("the window grid: windows complete as audio arrives, their stretches tile the timeline from the first sample")
    func grid() {
        let windows = LiveSpeakerWindows(origin: 1_000)
        let hop = Int64(LiveSpeakerWindows.hop), length = Int64(LiveSpeakerWindows.length)
        #expect(windows.completeCount(through: 1_000 + length - 1) == 0)
        #expect(windows.completeCount(through: 1_000 + length) == 1)
        #expect(windows.completeCount(through: 1_000 + length + 3 * hop) == 4)
        #expect(windows.labelled(by: 0).lowerBound == 1_000)
        for index in 0..<10 {
            #expect(windows.labelled(by: index).upperBound == windows.labelled(by: index + 1).lowerBound)
            #expect(windows.labelled(by: index + 1).count == Int(hop))
            // A stretch is the centre of its window.
            let window = windows.start(of: index + 1)..<(windows.start(of: index + 1) + length)
            #expect(windows.labelled(by: index + 1).lowerBound - window.lowerBound
                    == window.upperBound - windows.labelled(by: index + 1).upperBound)
        }
        // Speech: a fifth of the window's whole 512-sample chunks (the chunks counted from the origin).
        let chunks = Int(length) / 512 + 2
        var probabilities = [Float](repeating: 0, count: chunks)
        #expect(!windows.isSpeech(0, probabilities: probabilities))
        for c in 0..<(Int(length) / 512 / 5 + 1) { probabilities[c] = 0.9 }
        #expect(windows.isSpeech(0, probabilities: probabilities))
        #expect(!windows.isSpeech(0, probabilities: Array(probabilities.dropFirst(20)), firstChunk: 20))
    }
}
