import Foundation

/// The speaker of a stretch of transcript (a segment or a word, never split): who speaks most during it; failing
/// anyone, whoever speaks nearest, if near enough. Turns may overlap (overlapping speech): each speaker's time is the
/// union of their turns, and a word inside two speakers' overlap goes to the one who covers more of it.
package enum SpeakerAttribution {
    /// How far (seconds) a stretch heard in no turn may be from the nearest turn and still take its speaker: word
    /// timings and turn boundaries are each off by a few hundred milliseconds, and a word in a pause is the neighbouring
    /// speaker's far more often than nobody's.
    package static let defaultMaximumDistance = 1.0

    /// Overlaps this close (seconds) are equal: a word across a boundary is not decided by rounding.
    static let tolerance = 1e-6

    /// The speaker who speaks longest during `start...end`; when none does, the speaker of the nearest turn no more
    /// than `maximumDistance` away; else nil. Ties (within a microsecond) go to the speaker whose turn starts first
    /// (for a speaker's overlapping or touching turns, the first of them), then to the lower speaker number.
    package static func speaker(start: Double, end: Double, turns: [SpeakerTurn],
                                maximumDistance: Double = SpeakerAttribution.defaultMaximumDistance) -> Int? {
        Timeline(turns).speaker(start: start, end: end, maximumDistance: maximumDistance)
    }

    /// `speaker(start:end:turns:)` of each range, in order: each speaker's turns are sorted once, then each range costs
    /// a binary search per speaker (O((ranges·speakers + turns) log turns)), for transcripts of thousands of words.
    package static func speakers(for ranges: [(start: Double, end: Double)], turns: [SpeakerTurn],
                                 maximumDistance: Double = SpeakerAttribution.defaultMaximumDistance) -> [Int?] {
        let timeline = Timeline(turns)
        return ranges.map { timeline.speaker(start: $0.start, end: $0.end, maximumDistance: maximumDistance) }
    }
}

/// Each speaker's speech as sorted, disjoint intervals (the union of their turns) with running totals of duration.
private struct Timeline {
    struct Speech {
        let speaker: Int
        var starts: [Double] = []
        var ends: [Double] = []
        /// `before[i]`: total duration of intervals `0..<i`.
        var before: [Double] = [0]
    }

    private var speech: [Speech] = []

    init(_ turns: [SpeakerTurn]) {
        let valid = turns.filter { $0.start.isFinite && $0.end.isFinite && $0.end > $0.start }
            .enumerated().sorted { ($0.element.start, $0.offset) < ($1.element.start, $1.offset) }.map(\.element)
        var slot: [Int: Int] = [:]
        for turn in valid {
            let index: Int
            if let known = slot[turn.speaker] {
                index = known
            } else {
                index = speech.count
                slot[turn.speaker] = index
                speech.append(Speech(speaker: turn.speaker))
            }
            if let last = speech[index].ends.last, turn.start <= last {
                speech[index].ends[speech[index].ends.count - 1] = max(last, turn.end)
            } else {
                speech[index].starts.append(turn.start)
                speech[index].ends.append(turn.end)
            }
        }
        for index in speech.indices {
            var total = 0.0
            for (start, end) in zip(speech[index].starts, speech[index].ends) {
                total += end - start
                speech[index].before.append(total)
            }
        }
    }

    func speaker(start: Double, end rawEnd: Double, maximumDistance: Double) -> Int? {
        guard start.isFinite, rawEnd.isFinite else { return nil }
        let end = max(start, rawEnd)
        let tolerance = SpeakerAttribution.tolerance
        // Most overlap, ties to the turn that starts first.
        var best: (speaker: Int, overlap: Double, first: Double)?
        // Else the nearest, ties to the turn that starts first.
        var nearest: (speaker: Int, gap: Double, first: Double)?
        for s in speech {
            // Intervals `i0..<i1` overlap (start, end): the first ending after `start` up to the first starting at or
            // after `end`.
            let i0 = Self.firstIndex(in: s.ends) { $0 > start }
            let i1 = Self.firstIndex(in: s.starts) { $0 >= end }
            if i0 < i1 {
                let overlap = s.before[i1] - s.before[i0] - max(0, start - s.starts[i0]) - max(0, s.ends[i1 - 1] - end)
                let first = s.starts[i0]
                if overlap > 0, best.map({ overlap > $0.overlap + tolerance
                        || (overlap >= $0.overlap - tolerance && (first, s.speaker) < ($0.first, $0.speaker)) }) ?? true {
                    best = (s.speaker, overlap, first)
                }
            }
            guard best == nil else { continue }
            // No overlap: the interval before `start` and the one from `end` on are the candidates.
            var candidates: [(gap: Double, first: Double)] = []
            if i0 > 0 { candidates.append((start - s.ends[i0 - 1], s.starts[i0 - 1])) }
            if i0 < s.starts.count { candidates.append((max(0, s.starts[i0] - end), s.starts[i0])) }
            for candidate in candidates where candidate.gap <= maximumDistance {
                if nearest.map({ candidate.gap < $0.gap - tolerance
                        || (candidate.gap <= $0.gap + tolerance && (candidate.first, s.speaker) < ($0.first, $0.speaker)) })
                    ?? true {
                    nearest = (s.speaker, candidate.gap, candidate.first)
                }
            }
        }
        return best?.speaker ?? nearest?.speaker
    }

    /// The first index of the sorted `array` whose element satisfies `predicate` (false then true along the array).
    private static func firstIndex(in array: [Double], where predicate: (Double) -> Bool) -> Int {
        var low = 0, high = array.count
        while low < high {
            let middle = (low + high) / 2
            if predicate(array[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
