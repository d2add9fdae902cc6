import Foundation
import Testing
@testable import SpeechEngine

/// Overlap regions into a second speaker's turns (issue 45, item 3), without a model.
@Suite struct OverlapAssignmentTests {
    static func turn(_ start: Double, _ end: Double, _ speaker: Int) -> SpeakerTurn {
        SpeakerTurn(start: start, end: end, speaker: speaker)
    }

    static let assignment = OverlapAssignment()

    @Test("a reply that starts early: the overlap before the change is the next speaker's too")
    func earlyReply() {
        let turns = [Self.turn(0, 5, 0), Self.turn(5, 9, 1)]
        let result = Self.assignment.turns(turns, overlaps: [(4.2, 5)])
        #expect(result == [Self.turn(0, 5, 0), Self.turn(4.2, 9, 1)])
    }

    @Test("a speaker who goes on: the overlap after the change is the previous speaker's too")
    func goesOn() {
        let turns = [Self.turn(0, 5, 0), Self.turn(5, 9, 1)]
        #expect(Self.assignment.turns(turns, overlaps: [(5, 5.6)]) == [Self.turn(0, 5.6, 0), Self.turn(5, 9, 1)])
    }

    @Test("an overlap across the change: each side gets the other speaker, both turns cover it")
    func acrossTheChange() {
        let turns = [Self.turn(0, 5, 0), Self.turn(5, 9, 1)]
        #expect(Self.assignment.turns(turns, overlaps: [(4.6, 5.4)]) == [Self.turn(0, 5.4, 0), Self.turn(4.6, 9, 1)])
    }

    @Test("inside a turn, the speaker of the nearest other turn, before or after; ties to the earlier turn")
    func nearestOther() {
        let turns = [Self.turn(0, 4, 1), Self.turn(5, 20, 0), Self.turn(22, 25, 2)]
        // 18–19 is 3 s from speaker 2 and 14 s from speaker 1.
        #expect(Self.assignment.turns(turns, overlaps: [(18, 19)])
                == [Self.turn(0, 4, 1), Self.turn(5, 20, 0), Self.turn(18, 19, 2), Self.turn(22, 25, 2)])
        // 7–8 is 3 s from speaker 1.
        #expect(Self.assignment.turns(turns, overlaps: [(7, 8)])
                == [Self.turn(0, 4, 1), Self.turn(5, 20, 0), Self.turn(7, 8, 1), Self.turn(22, 25, 2)])
        // 12.5–13.5: 8.5 s from either: the earlier turn's speaker.
        #expect(Self.assignment.turns([Self.turn(0, 4, 1), Self.turn(4, 18, 0), Self.turn(22, 25, 2)], overlaps: [(12.5, 13.5)])
                == [Self.turn(0, 4, 1), Self.turn(4, 18, 0), Self.turn(12.5, 13.5, 1), Self.turn(22, 25, 2)])
    }

    @Test("nothing added: one speaker only, overlap outside speech, too short, or empty and non-finite regions")
    func nothingAdded() {
        let alone = [Self.turn(0, 10, 0)]
        #expect(Self.assignment.turns(alone, overlaps: [(2, 4)]) == alone)
        let two = [Self.turn(0, 5, 0), Self.turn(8, 12, 1)]
        #expect(Self.assignment.turns(two, overlaps: [(5.5, 7.5)]) == two)
        // 0.1 s, of which only 0.05 s inside a turn.
        #expect(Self.assignment.turns(two, overlaps: [(4.95, 5.05), (7.95, 8.05)]) == two)
        #expect(Self.assignment.turns(two, overlaps: [(3, 3), (4, 3), (.nan, 4), (3, .infinity)]) == two)
        // With no minimum the same short region counts: its part inside speaker 1's turn goes to speaker 0.
        #expect(OverlapAssignment(minimumDuration: 0).turns(two, overlaps: [(7.95, 8.05)])
                == [Self.turn(0, 5, 0), Self.turn(8, 8.05, 0), Self.turn(8, 12, 1)])
    }

    @Test("the minimum counts the region's speech across the turns it covers")
    func minimumAcrossTurns() {
        let turns = [Self.turn(0, 5, 0), Self.turn(5, 9, 1)]
        // 0.06 s on each side: 0.12 s in all, enough; 0.04 s on each side is not.
        #expect(Self.assignment.turns(turns, overlaps: [(4.94, 5.06)]) == [Self.turn(0, 5.06, 0), Self.turn(4.94, 9, 1)])
        #expect(Self.assignment.turns(turns, overlaps: [(4.96, 5.04)]) == turns)
    }

    @Test("turns out of order come back in time order; several regions; invalid turns dropped")
    func order() {
        let turns = [Self.turn(10, 15, 0), Self.turn(5, 10, 1), Self.turn(0, 5, 0), Self.turn(3, .nan, 2)]
        let result = Self.assignment.turns(turns, overlaps: [(9.5, 10.5), (4.5, 5)])
        #expect(result == [Self.turn(0, 5, 0), Self.turn(4.5, 10.5, 1), Self.turn(9.5, 15, 0)])
        #expect(zip(result, result.dropFirst()).allSatisfy { $0.start <= $1.start })
    }

    @Test("overlapping turns still attribute words: a word in the overlap goes to the speaker covering more of it")
    func attribution() {
        let result = Self.assignment.turns([Self.turn(0, 5, 0), Self.turn(5, 9, 1)], overlaps: [(4, 5)])
        #expect(SpeakerAttribution.speaker(start: 4.2, end: 4.6, turns: result) == 0)
        #expect(SpeakerAttribution.speaker(start: 4.6, end: 5.5, turns: result) == 1)
    }
}
