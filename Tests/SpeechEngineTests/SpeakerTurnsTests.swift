import Foundation
import Testing
@testable import SpeechEngine

/// Labelled windows into speaker turns, and the speaker of a stretch of transcript from turns.
@Suite struct SpeakerTurnsTests {
    /// The pipeline's windows: 1.5 s every 0.6 s from `start`, `count` of them.
    static func windows(from start: Double = 0, count: Int) -> [(start: Double, end: Double)] {
        (0..<count).map { index -> (start: Double, end: Double) in
            let from: Double = start + Double(index) * 0.6
            return (from, from + 1.5)
        }
    }

    static func turn(_ start: Double, _ end: Double, _ speaker: Int) -> SpeakerTurn {
        SpeakerTurn(start: start, end: end, speaker: speaker)
    }

    /// Turns equal to `expected` within a microsecond.
    static func matches(_ turns: [SpeakerTurn], _ expected: [SpeakerTurn]) -> Bool {
        turns.count == expected.count && zip(turns, expected).allSatisfy {
            $0.speaker == $1.speaker && abs($0.start - $1.start) < 1e-9 && abs($0.end - $1.end) < 1e-9
        }
    }

    // MARK: Turns

    @Test("a speaker change goes to the middle of the windows' overlap")
    func midpointBoundary() {
        let turns = SpeakerTurns.turns(windows: Self.windows(count: 6), labels: [0, 0, 0, 1, 1, 1])
        // Window 2 (1.2–2.7) and window 3 (1.8–3.3) overlap over 1.8–2.7: the change is at 2.25, halfway between their
        // centres.
        #expect(Self.matches(turns, [Self.turn(0, 2.25, 0), Self.turn(2.25, 4.5, 1)]))
    }

    @Test("windows given out of order give the same turns")
    func unsortedWindows() {
        let windows = Self.windows(count: 8), labels = [0, 0, 0, 1, 1, 1, 0, 0]
        let order = [5, 2, 7, 0, 1, 6, 3, 4]
        #expect(SpeakerTurns.turns(windows: order.map { windows[$0] }, labels: order.map { labels[$0] })
            == SpeakerTurns.turns(windows: windows, labels: labels))
    }

    @Test("one speaker across a pause of up to 4 s is one turn; across a longer silence, two")
    func gapMerging() {
        let first = Self.windows(count: 4)  // 0–3.3
        let afterBreath = Self.windows(from: 3.6, count: 4)  // 0.3 s later
        #expect(Self.matches(SpeakerTurns.turns(windows: first + afterBreath, labels: [Int](repeating: 1, count: 8)),
                             [Self.turn(0, 3.6 + 1.8 + 1.5, 1)]))
        let afterPause = Self.windows(from: 5.3, count: 4)  // 2 s later: a speaker's pause, within the default 4 s
        #expect(Self.matches(SpeakerTurns.turns(windows: first + afterPause, labels: [Int](repeating: 1, count: 8)),
                             [Self.turn(0, 8.6, 1)]))
        let afterSilence = Self.windows(from: 8.3, count: 4)  // 5 s later
        #expect(Self.matches(SpeakerTurns.turns(windows: first + afterSilence, labels: [Int](repeating: 1, count: 8)),
                             [Self.turn(0, 3.3, 1), Self.turn(8.3, 11.6, 1)]))
        #expect(SpeakerTurns.turns(windows: first + afterBreath, labels: [Int](repeating: 1, count: 8), maximumGap: 0.1)
            .count == 2)
    }

    @Test("a lone window of another speaker inside one speaker's talk is absorbed; two windows are a turn")
    func shortTurnAbsorbed() {
        let windows = Self.windows(count: 6)
        #expect(Self.matches(SpeakerTurns.turns(windows: windows, labels: [0, 0, 1, 0, 0, 0]), [Self.turn(0, 4.5, 0)]))
        let kept = SpeakerTurns.turns(windows: windows, labels: [0, 0, 1, 1, 0, 0])
        #expect(Self.matches(kept, [Self.turn(0, 1.65, 0), Self.turn(1.65, 2.85, 1), Self.turn(2.85, 4.5, 0)]))
        // Between two different speakers, or at the start, a short turn stays.
        #expect(SpeakerTurns.turns(windows: windows, labels: [0, 0, 1, 2, 2, 2]).map(\.speaker) == [0, 1, 2])
        #expect(SpeakerTurns.turns(windows: windows, labels: [1, 0, 0, 0, 0, 0]).map(\.speaker) == [1, 0])
        // With no minimum, every change is a turn.
        #expect(SpeakerTurns.turns(windows: windows, labels: [0, 0, 1, 0, 0, 0], minimumTurn: 0).map(\.speaker) == [0, 1, 0])
    }

    @Test("turns are in order, never overlap, and stay within the windows", arguments: [1, 2, 3, 4, 5])
    func wellFormed(seed: UInt64) {
        var generator = SeededGenerator(seed: seed)
        var windows: [(start: Double, end: Double)] = [], labels: [Int] = []
        var time = 0.0
        for _ in 0..<12 {
            // A speech region of 1–9 windows (the last one cut short), then a pause.
            let count = Int.random(in: 1...9, using: &generator)
            let regionEnd = time + Double(count - 1) * 0.6 + Double.random(in: 0.3...1.5, using: &generator)
            for index in 0..<count {
                let start = time + Double(index) * 0.6
                windows.append((start, min(start + 1.5, regionEnd)))
                labels.append(Int.random(in: 0..<3, using: &generator))
            }
            time = regionEnd + Double.random(in: 0.05...3, using: &generator)
        }
        let turns = SpeakerTurns.turns(windows: windows, labels: labels)
        #expect(!turns.isEmpty)
        for turn in turns { #expect(turn.end > turn.start) }
        for (a, b) in zip(turns, turns.dropFirst()) {
            #expect(a.end <= b.start)
            if a.speaker == b.speaker { #expect(b.start - a.end > SpeakerTurns.defaultMaximumGap) }
        }
        #expect((turns.first?.start ?? -1) >= 0 && (turns.last?.end ?? .infinity) <= windows[windows.count - 1].end)
    }

    @Test("no windows, no turns; bad windows are skipped")
    func emptyAndBadWindows() {
        #expect(SpeakerTurns.turns(windows: [], labels: []).isEmpty)
        #expect(SpeakerTurns.turns(windows: [(1, 1), (.nan, 2), (3, 2)], labels: [0, 0, 0]).isEmpty)
        #expect(SpeakerTurns.turns(windows: [(0, 1.5), (0.6, 2.1)], labels: [4]) == [Self.turn(0, 1.5, 4)])
    }

    @Test("speakers renumbered by first appearance, with their old numbers")
    func relabel() {
        let (turns, original) = SpeakerTurns.relabelByFirstAppearance(
            [Self.turn(5, 6, 7), Self.turn(0, 2, 3), Self.turn(2, 4, 7), Self.turn(6, 8, 3)])
        #expect(turns.map(\.speaker) == [1, 0, 1, 0])
        #expect(original == [3, 7])
    }

    // MARK: Attribution

    static let conversation = [turn(0, 5, 0), turn(5, 10, 1), turn(12, 15, 0)]

    @Test("a stretch goes to whoever speaks most during it")
    func majority() {
        #expect(SpeakerAttribution.speaker(start: 1, end: 2, turns: Self.conversation) == 0)
        #expect(SpeakerAttribution.speaker(start: 4.9, end: 5.3, turns: Self.conversation) == 1)
        // A segment over three turns: 3 s of speaker 0 (4–5, 12–14), 5 s of speaker 1.
        #expect(SpeakerAttribution.speaker(start: 4, end: 14, turns: Self.conversation) == 1)
        #expect(SpeakerAttribution.speaker(start: 0, end: 15, turns: Self.conversation) == 0)
    }

    @Test("a word split evenly by a boundary goes to the earlier turn")
    func boundaryTie() {
        #expect(SpeakerAttribution.speaker(start: 4.9, end: 5.1, turns: Self.conversation) == 0)
        #expect(SpeakerAttribution.speaker(start: 4.5, end: 5.5, turns: Self.conversation) == 0)
        #expect(SpeakerAttribution.speaker(start: 5, end: 5, turns: Self.conversation) == 0)
        #expect(SpeakerAttribution.speaker(start: 5.01, end: 5.01, turns: Self.conversation) == 1)
    }

    @Test("a word in silence goes to the nearest turn within a second, else nobody")
    func silence() {
        #expect(SpeakerAttribution.speaker(start: 10.2, end: 10.5, turns: Self.conversation) == 1)
        #expect(SpeakerAttribution.speaker(start: 11.4, end: 11.8, turns: Self.conversation) == 0)
        // Equally near both: the earlier turn.
        #expect(SpeakerAttribution.speaker(start: 10.8, end: 11.2, turns: Self.conversation) == 1)
        #expect(SpeakerAttribution.speaker(start: 16.5, end: 17, turns: Self.conversation) == nil)
        #expect(SpeakerAttribution.speaker(start: 16.5, end: 17, turns: Self.conversation, maximumDistance: 2) == 0)
        #expect(SpeakerAttribution.speaker(start: 1, end: 2, turns: []) == nil)
        #expect(SpeakerAttribution.speaker(start: .nan, end: 2, turns: Self.conversation) == nil)
    }

    @Test("overlapping turns: the speaker covering more of the word; a tie to the turn that began first")
    func overlappingTurns() {
        // Speaker 0 talks 0–10; speaker 1 cuts in 6–8; speaker 2 talks 7.5–12.
        let turns = [Self.turn(0, 10, 0), Self.turn(6, 8, 1), Self.turn(7.5, 12, 2)]
        #expect(SpeakerAttribution.speaker(start: 6.5, end: 7, turns: turns) == 0)
        #expect(SpeakerAttribution.speaker(start: 5, end: 7.9, turns: turns) == 0)
        #expect(SpeakerAttribution.speaker(start: 7.9, end: 11, turns: turns) == 2)
        // 0.1 s before speaker 1 starts: 0 covers more.
        #expect(SpeakerAttribution.speaker(start: 5.9, end: 6.4, turns: turns) == 0)
        // A speaker's own overlapping turns count once.
        let doubled = [Self.turn(0, 4, 0), Self.turn(1, 4, 0), Self.turn(2, 7, 1)]
        #expect(SpeakerAttribution.speaker(start: 1, end: 7, turns: doubled) == 1)
    }

    @Test("the batch form equals asking one range at a time, and the rule by direct scan", arguments: [1, 2, 3])
    func batchMatchesSingle(seed: UInt64) {
        var generator = SeededGenerator(seed: seed)
        // Turns on a 0.1 s grid, some overlapping, so ties and touching boundaries occur.
        var turns: [SpeakerTurn] = []
        var tenths = 0
        for _ in 0..<200 {
            let length = Int.random(in: 1...60, using: &generator)
            turns.append(Self.turn(Double(tenths) / 10, Double(tenths + length) / 10, Int.random(in: 0..<4, using: &generator)))
            tenths += max(0, length + Int.random(in: -10...25, using: &generator))
        }
        let ranges = (0..<2_000).map { _ -> (start: Double, end: Double) in
            let start = Int.random(in: 0...(tenths + 20), using: &generator)
            return (Double(start) / 10, Double(start + Int.random(in: 0...30, using: &generator)) / 10)
        }
        // Off the grid, so no gap is within rounding of the limit.
        let distance = 1.05
        let batch = SpeakerAttribution.speakers(for: ranges, turns: turns.shuffled(using: &generator), maximumDistance: distance)
        #expect(batch == ranges.map { SpeakerAttribution.speaker(start: $0.start, end: $0.end, turns: turns, maximumDistance: distance) })
        #expect(batch == ranges.map { Self.bruteForce(start: $0.start, end: $0.end, turns: turns, maximumDistance: distance) })
        #expect(batch.contains(nil) && batch.contains { $0 != nil })
    }

    /// The attribution rule by direct scan over a 0.1 s grid (every time in the test is a multiple of 0.1): each
    /// speaker's time in the range, else the gap to each turn; ties to the earlier start of the speaker's stretch of
    /// speech (their overlapping or touching turns joined), then the lower speaker.
    static func bruteForce(start: Double, end: Double, turns: [SpeakerTurn], maximumDistance: Double) -> Int? {
        /// The start of the stretch of `speaker`'s speech that `turn` is in.
        func stretchStart(_ turn: SpeakerTurn) -> Double {
            var first = turn.start
            while let earlier = turns.filter({ $0.speaker == turn.speaker && $0.start < first && $0.end >= first })
                .min(by: { $0.start < $1.start }) {
                first = earlier.start
            }
            return first
        }
        func better(_ a: (Double, Double, Int), than b: (Double, Double, Int)?) -> Bool {
            guard let b else { return true }
            return a.0 > b.0 + 1e-6 || (a.0 >= b.0 - 1e-6 && (a.1, a.2) < (b.1, b.2))
        }
        var best: (Double, Double, Int)?
        for speaker in Set(turns.map(\.speaker)) {
            let own = turns.filter { $0.speaker == speaker }
            var overlap = 0.0, first = Double.infinity
            for t in Int((start * 10).rounded())..<max(Int((start * 10).rounded()), Int((end * 10).rounded())) {
                let middle = (Double(t) + 0.5) / 10
                if let covering = own.first(where: { $0.start <= middle && middle < $0.end }) {
                    overlap += 0.1
                    first = min(first, stretchStart(covering))
                }
            }
            if overlap > 0 && better((overlap, first, speaker), than: best) { best = (overlap, first, speaker) }
        }
        if let best { return best.2 }
        var nearest: (Double, Double, Int)?
        for turn in turns {
            let gap = max(0, turn.start - end, start - turn.end)
            guard gap <= maximumDistance else { continue }
            if better((-gap, stretchStart(turn), turn.speaker), than: nearest) { nearest = (-gap, stretchStart(turn), turn.speaker) }
        }
        return nearest?.2
    }
}
