import Foundation
import Testing
@testable import SpeechEngine

/// Where the segmentation model listens for overlap (issue 45, item 3), without a model.
@Suite struct OverlapWindowsTests {
    static let window = SpeakerSegmentationModel.windowSamples

    static func turn(_ start: Double, _ end: Double, _ speaker: Int) -> SpeakerTurn {
        SpeakerTurn(start: start, end: end, speaker: speaker)
    }

    @Test("everywhere: a window every step, the last ending with the recording; a short recording one window")
    func everywhere() {
        let policy = OverlapWindows.everywhere(step: 80_000)
        #expect(policy.starts(turns: [], samples: 400_000) == [0, 80_000, 160_000, 240_000])
        #expect(policy.starts(turns: [], samples: 410_000) == [0, 80_000, 160_000, 240_000, 250_000])
        #expect(policy.starts(turns: [], samples: 50_000) == [0])
        #expect(policy.starts(turns: [], samples: 0).isEmpty)
    }

    @Test("at changes: centred on each change of speaker, inside the recording; close changes share a window")
    func atChanges() {
        let policy = OverlapWindows.atChanges(maximumGap: 2)
        let turns = [Self.turn(0, 20, 0), Self.turn(20.5, 40, 1), Self.turn(41, 42, 0), Self.turn(50, 60, 1),
                     Self.turn(60, 90, 1), Self.turn(90, 93, 2)]
        // Changes at 20.25 and 40.5 s; 42–50 s is too long a pause; 60 s the same speaker; 90 s a change near the end
        // (its window clamped to 83–93 s).
        let expected: [Int] = [244_000, 568_000, 1_328_000]
        #expect(policy.starts(turns: turns, samples: 93 * 16_000) == expected)
        // The change 41.0 → 41.5 is 1 s after the one at 40.5: left to that window.
        let close = [Self.turn(0, 40, 0), Self.turn(41, 41.5, 1), Self.turn(41.5, 50, 0)]
        #expect(policy.starts(turns: close, samples: 60 * 16_000) == [568_000])
        #expect(policy.starts(turns: [Self.turn(0, 1, 0), Self.turn(1, 2, 1)], samples: 40_000) == [0])
        #expect(policy.starts(turns: [Self.turn(0, 30, 0)], samples: 30 * 16_000).isEmpty)
    }
}
