import Foundation
import Testing
import SpeechEvaluation

/// Diarization error rate on hand-made turns whose answer is known.
@Suite struct DiarizationErrorRateTests {
    typealias Turn = DiarizationErrorRate.Turn

    static let halves: [Turn] = [(0, 5, "A"), (5, 10, "B")]

    static func close(_ a: Double, _ b: Double) -> Bool { abs(a - b) < 1e-9 }

    @Test("identical turns, or the same turns under other names, score 0")
    func perfect() {
        let same = DiarizationErrorRate(reference: Self.halves, hypothesis: Self.halves)
        #expect(same.value == 0 && same.mapping == ["A": "A", "B": "B"])
        let renamed = DiarizationErrorRate(reference: Self.halves, hypothesis: [(0, 5, "spk1"), (5, 10, "spk0")], collar: 0)
        #expect(renamed.value == 0 && renamed.miss == 0 && renamed.falseAlarm == 0 && renamed.confusion == 0)
        #expect(Self.close(renamed.scored, 10))
        #expect(renamed.mapping == ["A": "spk1", "B": "spk0"])
    }

    @Test("one speaker for a half-and-half conversation is half confusion")
    func oneSpeakerForTwo() {
        let score = DiarizationErrorRate(reference: Self.halves, hypothesis: [(0, 10, "x")], collar: 0)
        #expect(Self.close(score.confusion, 5) && score.miss == 0 && score.falseAlarm == 0)
        #expect(Self.close(score.value, 0.5))
        #expect(score.mapping.count == 1)
    }

    @Test("a turn nobody found is missed; speech nobody said is a false alarm")
    func missAndFalseAlarm() {
        let reference: [Turn] = [(0, 5, "A"), (6, 10, "B")]
        let missed = DiarizationErrorRate(reference: reference, hypothesis: [(0, 5, "x")], collar: 0)
        #expect(Self.close(missed.miss, 4) && missed.confusion == 0 && missed.falseAlarm == 0)
        #expect(Self.close(missed.value, 4.0 / 9))
        let extra = DiarizationErrorRate(reference: reference, hypothesis: [(0, 5, "x"), (6, 10, "y"), (11, 13, "y")], collar: 0)
        #expect(Self.close(extra.falseAlarm, 2) && extra.miss == 0 && extra.confusion == 0)
        // Speech into the pause between turns.
        let filled = DiarizationErrorRate(reference: reference, hypothesis: [(0, 5.5, "x"), (5.5, 10, "y")], collar: 0)
        #expect(Self.close(filled.falseAlarm, 1))
    }

    @Test("the collar leaves boundary errors unscored")
    func collar() {
        let late: [Turn] = [(0, 5.2, "x"), (5.2, 10, "y")]
        let strict = DiarizationErrorRate(reference: Self.halves, hypothesis: late, collar: 0)
        #expect(Self.close(strict.confusion, 0.2))
        let usual = DiarizationErrorRate(reference: Self.halves, hypothesis: late)
        #expect(usual.value == 0)
        // ±0.25 s around 0, 5 and 10 is not scored (clipped to the recording at 0).
        #expect(Self.close(usual.scored, 9))
        let tooLate = DiarizationErrorRate(reference: Self.halves, hypothesis: [(0, 5.5, "x"), (5.5, 10, "y")])
        #expect(Self.close(tooLate.confusion, 0.25))
    }

    @Test("overlapped speech counts per speaker")
    func overlap() {
        // A talks 0–10, B over them 4–6: 12 s of speaker time.
        let reference: [Turn] = [(0, 10, "A"), (4, 6, "B")]
        let oneAtATime = DiarizationErrorRate(reference: reference, hypothesis: [(0, 10, "x")], collar: 0)
        #expect(Self.close(oneAtATime.scored, 12) && Self.close(oneAtATime.miss, 2) && oneAtATime.confusion == 0)
        let both = DiarizationErrorRate(reference: reference, hypothesis: [(0, 10, "x"), (4, 6, "y")], collar: 0)
        #expect(both.value == 0)
        // B found but A dropped during the overlap: one of two speakers missed there, none confused.
        let handedOver = DiarizationErrorRate(reference: reference, hypothesis: [(0, 4, "x"), (4, 6, "y"), (6, 10, "x")], collar: 0)
        #expect(Self.close(handedOver.miss, 2) && handedOver.confusion == 0 && handedOver.falseAlarm == 0)
        // Two hypothesis speakers where one talks: a false alarm.
        let doubled = DiarizationErrorRate(reference: [(0, 10, "A")], hypothesis: [(0, 10, "x"), (2, 3, "y")], collar: 0)
        #expect(Self.close(doubled.falseAlarm, 1) && doubled.confusion == 0)
    }

    @Test("the mapping maximizes the total agreement, not the largest pair first")
    func optimalMapping() {
        // x shares 7 s with A and 6 s with B, y 3 s with A: pairing x with A (7 + 0) loses to y–A and x–B (3 + 6).
        let reference: [Turn] = [(0, 10, "A"), (10, 16, "B")]
        let hypothesis: [Turn] = [(0, 7, "x"), (7, 10, "y"), (10, 16, "x")]
        let score = DiarizationErrorRate(reference: reference, hypothesis: hypothesis, collar: 0)
        #expect(score.mapping == ["A": "y", "B": "x"])
        #expect(Self.close(score.confusion, 7) && Self.close(score.value, 7.0 / 16))
    }

    @Test("more hypothesis speakers than reference ones, and the reverse")
    func unequalCounts() {
        let split = DiarizationErrorRate(reference: [(0, 10, "A")], hypothesis: [(0, 6, "x"), (6, 10, "y")], collar: 0)
        #expect(split.mapping == ["A": "x"] && Self.close(split.confusion, 4))
        let none = DiarizationErrorRate(reference: Self.halves, hypothesis: [], collar: 0)
        #expect(none.value == 1 && none.mapping.isEmpty)
        #expect(DiarizationErrorRate(reference: [], hypothesis: []).value == 0)
        #expect(DiarizationErrorRate(reference: [], hypothesis: [(0, 1, "x")]).value == .infinity)
    }

    @Test("RTTM lines are read; other files and lines are skipped")
    func rttm() {
        let text = """
            SPEAKER meeting 1 0.50 2.25 <NA> <NA> alice <NA> <NA>
            SPEAKER meeting 1 2.75 1.00 <NA> <NA> bob <NA> <NA>
            ;; a comment
            SPEAKER other 1 9.00 1.00 <NA> <NA> carol <NA> <NA>
            SPEAKER meeting 1 x 1.00 <NA> <NA> bad <NA> <NA>
            SPKR-INFO meeting 1 <NA> <NA> <NA> unknown alice <NA>
            """
        let meeting = DiarizationErrorRate.rttm(text, file: "meeting")
        #expect(meeting.map(\.speaker) == ["alice", "bob"])
        #expect(meeting.map(\.start) == [0.5, 2.75] && meeting.map(\.end) == [2.75, 3.75])
        #expect(DiarizationErrorRate.rttm(text).count == 3)
    }
}
