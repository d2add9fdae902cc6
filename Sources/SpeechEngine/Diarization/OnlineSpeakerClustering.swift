/// Speakers labelled as they speak (live diarization): each window's embedding, in time order, joins the speaker whose
/// centroid it is most like, or starts a new speaker; a label once given never changes, and speakers are numbered from
/// 0 in order of first appearance.
///
/// A window like no speaker so far is held back rather than made a speaker at once: a window across a change of
/// speaker, a cough or a laugh sounds like nobody, and a speaker made of it would stay for the rest of the session.
/// The held window starts a new speaker only when the next window is like it too; otherwise it goes to the speaker it
/// is most like. So a new voice is labelled one window later than a known one. Deterministic: the same embeddings in the same order give the same labels.
package struct OnlineSpeakerClustering: Sendable {
    /// Cosine similarity to a speaker's centroid (the mean of its windows' unit embeddings, unit length) at or above
    /// which a window joins that speaker; the similarity two held windows need to start a speaker together. On the
    /// benchmark's conversations and nine held-out ones (BENCHMARKS.md), 0.5 merged speakers in 2 and 3 of 9, 0.6 split
    /// one in 2 of 9, 0.55 found every count.
    package static let defaultThreshold: Float = 0.55

    package var threshold: Float
    /// At most this many speakers: a window like no speaker then joins the nearest.
    package var maxSpeakers: Int?

    /// Each speaker's sum of unit embeddings.
    private var sums: [[Float]] = []
    /// A window like no speaker, waiting for the next: its number and unit embedding.
    private var held: (window: Int, unit: [Float])?

    package init(threshold: Float = Self.defaultThreshold, maxSpeakers: Int? = nil) {
        self.threshold = threshold
        self.maxSpeakers = maxSpeakers.map { max(1, $0) }
    }

    /// Speakers started so far.
    package var speakerCount: Int { sums.count }

    /// A label given to a window.
    package struct Label: Sendable, Equatable {
        package var window: Int
        package var speaker: Int
    }

    /// Adds window `window`'s embedding (windows numbered in time order by the caller); returns the windows this
    /// labels, in window order: none (the window is held), this one, or a held one and this one. An embedding that is
    /// zero or not finite is like no one: it goes to the nearest speaker (speaker 0 when there is none yet).
    package mutating func add(_ embedding: [Float], window: Int) -> [Label] {
        let unit = SpeakerClustering.normalized(embedding, dimension: embedding.count)
        guard !sums.isEmpty else {
            sums.append(unit)
            return [Label(window: window, speaker: 0)]
        }
        let nearest = nearestSpeaker(unit)
        let full = maxSpeakers.map { sums.count >= $0 } ?? false
        var labels: [Label] = []
        if let held {
            self.held = nil
            if nearest.similarity < threshold, !full, SpeakerClustering.dot(held.unit, unit) >= threshold {
                // Two like windows, like no one before: a new speaker.
                sums.append(zip(held.unit, unit).map { $0 + $1 })
                let speaker = sums.count - 1
                return [Label(window: held.window, speaker: speaker), Label(window: window, speaker: speaker)]
            }
            labels.append(Label(window: held.window, speaker: nearestSpeaker(held.unit).speaker))
        }
        if nearest.similarity >= threshold || full || isZero(unit) {
            add(unit, to: nearest.speaker)
            labels.append(Label(window: window, speaker: nearest.speaker))
        } else {
            held = (window, unit)
        }
        return labels
    }

    /// Labels the held window, if any (speech ended, or the input): it goes to the speaker it is most like.
    package mutating func flush() -> [Label] {
        guard let held else { return [] }
        self.held = nil
        return [Label(window: held.window, speaker: nearestSpeaker(held.unit).speaker)]
    }

    /// The speaker whose centroid is most like `unit` (ties to the lower number) and the similarity.
    private func nearestSpeaker(_ unit: [Float]) -> (speaker: Int, similarity: Float) {
        var best = (speaker: 0, similarity: -Float.infinity)
        for (speaker, sum) in sums.enumerated() {
            let length = SpeakerClustering.norm(sum)
            let similarity = length > 0 ? SpeakerClustering.dot(unit, sum) / length : 0
            if similarity > best.similarity { best = (speaker, similarity) }
        }
        return best
    }

    private mutating func add(_ unit: [Float], to speaker: Int) {
        for k in unit.indices { sums[speaker][k] += unit[k] }
    }

    private func isZero(_ unit: [Float]) -> Bool { !unit.contains { $0 != 0 } }
}
