/// Overlapping speech kept as such: where two people are heard at once (the segmentation model's overlap regions),
/// the speaker of the turn there is joined by a second one, the other speaker whose nearest turn is closest in time:
/// overlaps in conversation are mostly a reply that starts early or a speaker who goes on over the next, so the
/// second voice is the neighbouring turn's. A pure value: no model needed.
package struct OverlapAssignment: Sendable, Equatable {
    /// Overlap regions with less speech (seconds inside turns) than this add nothing: a few frames (17 ms each, hearing
    /// 62 ms) counted 2 are a flicker where one voice hands over to the next. On the benchmark conversations, minimums
    /// up to 0.15 s kept the same 0.8 s of real overlap (and 0.06 s of false); 0.25 s lost a quarter of it, 0.5 s all.
    package static let defaultMinimumDuration = 0.1

    package var minimumDuration: Double

    package init(minimumDuration: Double = OverlapAssignment.defaultMinimumDuration) {
        self.minimumDuration = minimumDuration
    }

    /// `turns` (one speaker at a time, as `SpeakerTurns.turns` gives) with a turn added for the second speaker of each
    /// overlap region (`start`, `end` in seconds) with at least `minimumDuration` inside turns: the part of the region
    /// inside each turn gets the speaker other than that turn's whose nearest turn is closest to it (ties: the earlier
    /// turn, then the lower speaker). A region with no other speaker in the recording adds nothing, nor does the part
    /// of a region outside every turn. A speaker's turns that then overlap or touch join. In time order (by start, then
    /// end, then speaker); turns of different speakers may overlap.
    package func turns(_ turns: [SpeakerTurn], overlaps: [(start: Double, end: Double)]) -> [SpeakerTurn] {
        let valid = turns.filter { $0.start.isFinite && $0.end.isFinite && $0.end > $0.start }
            .sorted { ($0.start, $0.end, $0.speaker) < ($1.start, $1.end, $1.speaker) }
        var added: [SpeakerTurn] = []
        for region in overlaps where region.start.isFinite && region.end.isFinite && region.end > region.start {
            let pieces = valid.compactMap { turn -> SpeakerTurn? in
                let start = max(region.start, turn.start), end = min(region.end, turn.end)
                return end > start ? SpeakerTurn(start: start, end: end, speaker: turn.speaker) : nil
            }
            guard pieces.reduce(0, { $0 + $1.duration }) >= minimumDuration else { continue }
            for piece in pieces {
                if let other = Self.nearestOtherSpeaker(to: piece, in: valid) {
                    added.append(SpeakerTurn(start: piece.start, end: piece.end, speaker: other))
                }
            }
        }
        return Self.joined(valid + added)
    }

    /// The speaker other than `piece.speaker` whose turn is closest to `piece` (0 when they overlap or touch).
    static func nearestOtherSpeaker(to piece: SpeakerTurn, in turns: [SpeakerTurn]) -> Int? {
        var best: (distance: Double, start: Double, speaker: Int)?
        for turn in turns where turn.speaker != piece.speaker {
            let distance = max(0, turn.start - piece.end, piece.start - turn.end)
            let candidate = (distance, turn.start, turn.speaker)
            if best.map({ candidate < $0 }) ?? true { best = candidate }
        }
        return best?.speaker
    }

    /// Each speaker's turns that overlap or touch made one, all in time order.
    static func joined(_ turns: [SpeakerTurn]) -> [SpeakerTurn] {
        var result: [SpeakerTurn] = []
        var lastOf: [Int: Int] = [:]
        for turn in turns.sorted(by: { ($0.start, $0.end, $0.speaker) < ($1.start, $1.end, $1.speaker) }) {
            if let index = lastOf[turn.speaker], turn.start <= result[index].end {
                result[index].end = max(result[index].end, turn.end)
            } else {
                lastOf[turn.speaker] = result.count
                result.append(turn)
            }
        }
        return result
    }
}
