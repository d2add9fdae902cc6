import Testing
@testable import SpeechEngine

/// Powerset decoding and speaker counting over sliding windows (issue 45, item 2), on hand-built windows: no model.
@Suite struct PowersetActivityTests {
    /// Log-probabilities of 7 classes per frame that favour `classes`.
    static func scores(_ classes: [Int]) -> [Float] {
        classes.flatMap { best in (0..<7).map { $0 == best ? -0.1 : -4 - Float($0) * 0.1 } }
    }

    @Test("each frame's most probable class stands for its speakers; equal scores take the first class")
    func decoding() {
        let activity = PowersetActivity(logProbabilities: Self.scores([0, 1, 2, 3, 4, 5, 6]), frames: 7)
        #expect(activity.decoded == [0, 1, 2, 3, 4, 5, 6])
        #expect(activity.speakerCounts == [0, 1, 1, 1, 2, 2, 2])
        #expect(activity.activity == [0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 0, 1, 0, 1, 0, 1, 1])
        #expect(activity.isActive(speaker: 2, frame: 6) && !activity.isActive(speaker: 0, frame: 6))
        #expect(!activity.isActive(speaker: 0, frame: 0))
        let tied = PowersetActivity(logProbabilities: [Float](repeating: -1.9459, count: 7) + [-3, -3, -1, -1, -3, -3, -3], frames: 2)
        #expect(tied.decoded == [0, 2])
        // Any collection of scores: a slice of a longer array decodes the same.
        let all = Self.scores([6, 6, 4, 1])
        #expect(PowersetActivity(logProbabilities: all[14...], frames: 2).decoded == [4, 1])
    }

    @Test("windows at their start samples: frames averaged where they overlap, rounded half to even, 0 where none covers")
    func counting() {
        let step = SpeakerSegmentationModel.frameStep
        // A: frames 0..<6 of the grid. B starts 3 frames later (810 samples), C 1.4 frames after B (rounded down to 4).
        let a = PowersetActivity(classes: [1, 1, 4, 4, 4, 0])
        let b = PowersetActivity(classes: [4, 1, 0, 0, 5, 5])
        let c = PowersetActivity(classes: [0, 4, 6, 6])
        let counts = PowersetActivity.speakerCounts(windows: [(0, a), (3 * step, b), (4 * step + 108, c)])
        // Grid frame: 0  1  2  3        4            5            6           7        8
        // A:          1  1  2  2        2            0
        // B:                   2        1            0            0           2        2
        // C:                            0            2            2           2
        // mean:       1  1  2  2        1            2/3          1           2        2
        #expect(counts == [1, 1, 2, 2, 1, 1, 1, 2, 2])
        #expect(PowersetActivity.frames(withAtLeast: 2, in: counts) == [2..<4, 7..<9])

        // Halves round to even: (1 + 2) / 2 = 1.5 → 2, (1 + 0) / 2 = 0.5 → 0.
        let one = PowersetActivity(classes: [1, 1]), two = PowersetActivity(classes: [4, 0])
        #expect(PowersetActivity.speakerCounts(windows: [(0, one), (0, two)]) == [2, 0])
        // A gap between windows is 0; a start a half frame past a frame rounds to the even frame.
        let gap = PowersetActivity.speakerCounts(windows: [(0, one), (4 * step, one)])
        #expect(gap == [1, 1, 0, 0, 1, 1])
        #expect(PowersetActivity.speakerCounts(windows: [(step / 2, one)]) == [1, 1])
        #expect(PowersetActivity.speakerCounts(windows: [(3 * step / 2, one)]) == [0, 0, 1, 1])
        #expect(PowersetActivity.speakerCounts(windows: []) == [])
        #expect(PowersetActivity.frames(withAtLeast: 2, in: [2, 2, 1, 2]) == [0..<2, 3..<4])
    }
}
