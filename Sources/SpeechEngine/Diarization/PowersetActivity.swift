/// Who of a window's (up to three) local speakers is active at each frame, decoded from the segmentation model's
/// powerset classes as pyannote decodes them without thresholds: each frame's most probable class (the first of equal
/// ones) stands for its set of speakers. A pure value: no model needed.
///
/// Across a recording's sliding windows, `speakerCounts(windows:)` gives the number of people speaking at each frame
/// of a global grid (pyannote's speaker counting): frames where two people speak at once are those counted 2.
package struct PowersetActivity: Sendable, Equatable {
    /// Local speakers per window.
    package static let speakers = 3
    /// The local speakers of each powerset class, in pyannote's order: nobody, each speaker alone, each pair.
    package static let speakerSets: [[Int]] = [[], [0], [1], [2], [0, 1], [0, 2], [1, 2]]
    package static var classes: Int { speakerSets.count }

    /// The decoded class of each frame (an index into `speakerSets`).
    package let decoded: [Int]

    package var frames: Int { decoded.count }

    /// The frames' classes as given.
    package init(classes: [Int]) {
        precondition(classes.allSatisfy { Self.speakerSets.indices.contains($0) }, "powerset classes are 0...6")
        decoded = classes
    }

    /// Decodes `frames` rows of 7 log-probabilities (or any scores ordered as them) laid one after another.
    package init(logProbabilities: some Collection<Float>, frames: Int) {
        precondition(logProbabilities.count == frames * Self.classes, "\(Self.classes) scores per frame")
        var decoded: [Int] = []
        decoded.reserveCapacity(frames)
        var index = logProbabilities.startIndex
        for _ in 0..<frames {
            var best = 0, bestScore = logProbabilities[index]
            for k in 0..<Self.classes {
                let score = logProbabilities[index]
                if score > bestScore { best = k; bestScore = score }
                index = logProbabilities.index(after: index)
            }
            decoded.append(best)
        }
        self.decoded = decoded
    }

    /// Whether local `speaker` (0, 1 or 2) speaks at `frame`.
    package func isActive(speaker: Int, frame: Int) -> Bool { Self.speakerSets[decoded[frame]].contains(speaker) }

    /// `[frames × 3]`, 1 where the local speaker is active: pyannote's binarized segmentation of the window.
    package var activity: [UInt8] {
        var activity = [UInt8](repeating: 0, count: frames * Self.speakers)
        for (frame, k) in decoded.enumerated() {
            for speaker in Self.speakerSets[k] { activity[frame * Self.speakers + speaker] = 1 }
        }
        return activity
    }

    /// The number of local speakers active at each frame (0, 1 or 2).
    package var speakerCounts: [Int] { decoded.map { Self.speakerSets[$0].count } }

    /// The number of people speaking at each frame of a recording's global frame grid (frame `j` covers the samples
    /// `[frameStep · j, frameStep · j + 991)`), from `windows` that begin at the given samples: each window's frame `i`
    /// falls on global frame `round(start / frameStep) + i` (ties to even, as pyannote places a window's first
    /// frame); each global frame takes the average of the counts of the windows covering it, rounded to the nearest
    /// integer, ties to even (pyannote's `np.rint`). Frames no window covers are 0. As many frames as reach the end of
    /// the last-ending window. No frames at the windows' edges are left out (pyannote 3.1's pipeline trims none).
    package static func speakerCounts(windows: [(start: Int, activity: PowersetActivity)],
                                      frameStep: Int = SpeakerSegmentationModel.frameStep) -> [Int] {
        func firstFrame(_ start: Int) -> Int { Int((Double(start) / Double(frameStep)).rounded(.toNearestOrEven)) }
        let length = windows.map { firstFrame($0.start) + $0.activity.frames }.max() ?? 0
        var totals = [Int](repeating: 0, count: Swift.max(0, length)), covering = totals
        for window in windows {
            let first = firstFrame(window.start)
            for (i, count) in window.activity.speakerCounts.enumerated() where first + i >= 0 {
                totals[first + i] += count
                covering[first + i] += 1
            }
        }
        return zip(totals, covering).map { total, windows in
            windows == 0 ? 0 : Int((Double(total) / Double(windows)).rounded(.toNearestOrEven))
        }
    }

    /// The runs of consecutive frames counted at least `speakers` (2: overlapping speech) in `counts`.
    package static func frames(withAtLeast speakers: Int, in counts: [Int]) -> [Range<Int>] {
        var runs: [Range<Int>] = []
        var start: Int?
        for (frame, count) in counts.enumerated() {
            if count >= speakers { start = start ?? frame } else if let first = start { runs.append(first..<frame); start = nil }
        }
        if let first = start { runs.append(first..<counts.count) }
        return runs
    }
}
