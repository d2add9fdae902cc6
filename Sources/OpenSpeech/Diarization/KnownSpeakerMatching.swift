import SpeechEngine

/// Which speaker found in a recording is which known speaker: each reference's embedding against each speaker's
/// centroid by cosine similarity, pairs at or above `threshold` taken most similar first, each reference and each
/// speaker used once. A reference like no speaker names nobody; a speaker like no reference keeps a number.
///
/// A reference's embedding and a speaker's centroid are both means of several windows' embeddings, which sit closer
/// together than single windows do (the clustering's 0.5 is for those): on the corpus's readers, one utterance's mean
/// against another's is 0.89–0.97 for one person and 0.36–0.55 for two (13 utterances of 8 people). 0.7 stands
/// between, so a reference whose person does not speak in the recording names nobody rather than a stranger.
package struct KnownSpeakerMatching: Sendable, Equatable {
    package static let defaultThreshold: Float = 0.7

    /// For each speaker (by number), the index of the reference it is, or nil.
    package let referenceOfSpeaker: [Int?]

    /// Matches `references` (one embedding each) to the speakers' `centroids`.
    package init(references: [[Float]], centroids: [[Float]], threshold: Float = Self.defaultThreshold) {
        var pairs: [(reference: Int, speaker: Int, similarity: Float)] = []
        for (r, reference) in references.enumerated() {
            for (s, centroid) in centroids.enumerated() where centroid.count == reference.count {
                guard let similarity = SpeakerClustering.assign(reference, centroids: [centroid])?.similarity,
                      similarity >= threshold else { continue }
                pairs.append((r, s, similarity))
            }
        }
        // Most similar first; ties to the lowest reference, then the lowest speaker, so the result is deterministic.
        pairs.sort {
            ($0.similarity, -$0.reference, -$0.speaker) > ($1.similarity, -$1.reference, -$1.speaker)
        }
        var referenceOfSpeaker = [Int?](repeating: nil, count: centroids.count)
        var used = Set<Int>()
        for pair in pairs where referenceOfSpeaker[pair.speaker] == nil && !used.contains(pair.reference) {
            referenceOfSpeaker[pair.speaker] = pair.reference
            used.insert(pair.reference)
        }
        self.referenceOfSpeaker = referenceOfSpeaker
    }

    /// The speakers' labels: a matched speaker is named for its reference (`names[reference]`); the others are
    /// "Speaker 1", "Speaker 2"... in order (of first appearance, as speakers are numbered), skipping a label that is
    /// one of `names`, so no two speakers share a label.
    package func labels(names: [String]) -> [String] {
        let taken = Set(names)
        var next = 0
        return referenceOfSpeaker.map { reference in
            if let reference { return names[reference] }
            while taken.contains(SpeakerTurn.label(next)) { next += 1 }
            defer { next += 1 }
            return SpeakerTurn.label(next)
        }
    }
}
