import Foundation

/// Diarization error rate: the share of reference speech (each speaker's separately, so overlapped speech counts once
/// per speaker) that the hypothesis misses, attributes to the wrong speaker, or adds where nobody speaks, after mapping
/// hypothesis speakers one-to-one onto reference speakers to agree the most. Scored on a 10 ms grid; the time within
/// `collar` of any reference turn's start or end (each side) is not scored, as NIST's md-eval does, since annotators'
/// boundaries are themselves that uncertain.
///
/// Per scored frame with `r` reference and `h` hypothesis speakers, `c` of them paired by the mapping: miss
/// `max(0, r − h)`, false alarm `max(0, h − r)`, confusion `min(r, h) − c`.
public struct DiarizationErrorRate: Sendable {
    /// A speaker's turn, in seconds.
    public typealias Turn = (start: Double, end: Double, speaker: String)

    /// The grid step, seconds.
    public static let frame = 0.01
    /// The latest time scored, seconds (115 days): the grid is held in memory.
    public static let latest = 10_000_000.0

    /// Reference speech heard by no hypothesis speaker, seconds.
    public let miss: Double
    /// Hypothesis speech beyond the reference's, seconds.
    public let falseAlarm: Double
    /// Speech attributed to a speaker the mapping does not pair with the reference's, seconds.
    public let confusion: Double
    /// Reference speech scored (per speaker, outside the collars), seconds.
    public let scored: Double
    /// Hypothesis speaker for each reference speaker they share scored speech with, the pairing that shares the most.
    public let mapping: [String: String]

    /// `(miss + falseAlarm + confusion) / scored`; 0 when nothing is scored nor wrong, infinite when there is only
    /// hypothesis speech.
    public var value: Double {
        let errors = miss + falseAlarm + confusion
        return scored > 0 ? errors / scored : errors > 0 ? .infinity : 0
    }

    /// Scores `hypothesis` against `reference`. Turns that end before they start, or whose times are not finite or past
    /// `latest`, are ignored; a speaker's overlapping turns count as one.
    public init(reference: [Turn], hypothesis: [Turn], collar: Double = 0.25) {
        let step = Self.frame
        func frame(_ time: Double) -> Int { Int((max(0, time) / step).rounded()) }
        func valid(_ turn: Turn) -> Bool { turn.start.isFinite && turn.end <= Self.latest && turn.end > turn.start }
        let ref = reference.filter(valid), hyp = hypothesis.filter(valid)
        let frames = (ref + hyp).map { frame($0.end) }.max() ?? 0

        /// Each speaker's activity per frame, speakers in order of first mention.
        func activity(_ turns: [Turn]) -> (names: [String], active: [[Bool]]) {
            var names: [String] = [], index: [String: Int] = [:], active: [[Bool]] = []
            for turn in turns {
                let speaker: Int
                if let known = index[turn.speaker] {
                    speaker = known
                } else {
                    speaker = names.count
                    index[turn.speaker] = speaker
                    names.append(turn.speaker)
                    active.append([Bool](repeating: false, count: frames))
                }
                let first = frame(turn.start), last = frame(turn.end)
                if first < last { for f in first..<last { active[speaker][f] = true } }
            }
            return (names, active)
        }
        let (refNames, refActive) = activity(ref)
        let (hypNames, hypActive) = activity(hyp)

        // Frames within the collar of a reference speaker's start or end are not scored.
        var isScored = [Bool](repeating: true, count: frames)
        let width = Int((max(0, collar) / step).rounded())
        if width > 0 {
            for active in refActive {
                for boundary in 0...frames
                where (boundary > 0 && active[boundary - 1]) != (boundary < frames && active[boundary]) {
                    for f in max(0, boundary - width)..<min(frames, boundary + width) { isScored[f] = false }
                }
            }
        }

        // Scored frames each pair of speakers shares, then the pairing sharing the most.
        var shared = [[Int]](repeating: [Int](repeating: 0, count: hypNames.count), count: refNames.count)
        var refNow: [Int] = [], hypNow: [Int] = []
        func speakers(at f: Int) {
            refNow.removeAll(keepingCapacity: true)
            hypNow.removeAll(keepingCapacity: true)
            for r in refActive.indices where refActive[r][f] { refNow.append(r) }
            for h in hypActive.indices where hypActive[h][f] { hypNow.append(h) }
        }
        for f in 0..<frames where isScored[f] {
            speakers(at: f)
            for r in refNow { for h in hypNow { shared[r][h] += 1 } }
        }
        let pairs = Self.bestPairing(shared)

        var miss = 0, falseAlarm = 0, confusion = 0, scored = 0
        for f in 0..<frames where isScored[f] {
            speakers(at: f)
            let correct = refNow.filter { r in pairs[r].map { hypActive[$0][f] } ?? false }.count
            miss += max(0, refNow.count - hypNow.count)
            falseAlarm += max(0, hypNow.count - refNow.count)
            confusion += min(refNow.count, hypNow.count) - correct
            scored += refNow.count
        }
        self.miss = Double(miss) * step
        self.falseAlarm = Double(falseAlarm) * step
        self.confusion = Double(confusion) * step
        self.scored = Double(scored) * step
        var mapping: [String: String] = [:]
        for (r, h) in pairs.enumerated() {
            if let h, shared[r][h] > 0 { mapping[refNames[r]] = hypNames[h] }
        }
        self.mapping = mapping
    }

    /// The turns of RTTM text (`SPEAKER file channel start duration <NA> <NA> name <NA> <NA>` per line), of `file`
    /// only when given; other lines and malformed ones are skipped.
    public static func rttm(_ text: String, file: String? = nil) -> [Turn] {
        text.split(whereSeparator: \.isNewline).compactMap { line -> Turn? in
            let fields = line.split(whereSeparator: \.isWhitespace)
            guard fields.count >= 8, fields[0] == "SPEAKER", file.map({ fields[1] == $0 }) ?? true,
                  let start = Double(fields[3]), let duration = Double(fields[4]),
                  start.isFinite, duration.isFinite, duration >= 0 else { return nil }
            return (start, start + duration, String(fields[7]))
        }
    }

    /// For each row (reference speaker) of `shared`, the column (hypothesis speaker) it is paired with, at most one row
    /// per column, maximizing the total of the pairs' entries: the Hungarian algorithm (shortest augmenting paths with
    /// potentials) on the square matrix padded with zeros, cost = largest entry − entry. O(n³); n ≤ a few dozen.
    static func bestPairing(_ shared: [[Int]]) -> [Int?] {
        let rows = shared.count, columns = shared.first?.count ?? 0
        let n = max(rows, columns)
        guard rows > 0, columns > 0 else { return [Int?](repeating: nil, count: rows) }
        let largest = shared.map { $0.max() ?? 0 }.max() ?? 0
        func cost(_ i: Int, _ j: Int) -> Int { i < rows && j < columns ? largest - shared[i][j] : largest }
        // 1-based: row 0 and column 0 are the sentinel. `owner[j]`: the row assigned to column j.
        var u = [Int](repeating: 0, count: n + 1), v = [Int](repeating: 0, count: n + 1)
        var owner = [Int](repeating: 0, count: n + 1), way = [Int](repeating: 0, count: n + 1)
        for i in 1...n {
            owner[0] = i
            var column = 0
            var least = [Int](repeating: .max, count: n + 1)
            var used = [Bool](repeating: false, count: n + 1)
            repeat {
                used[column] = true
                let row = owner[column]
                var delta = Int.max, next = 0
                for j in 1...n where !used[j] {
                    let reduced = cost(row - 1, j - 1) - u[row] - v[j]
                    if reduced < least[j] {
                        least[j] = reduced
                        way[j] = column
                    }
                    if least[j] < delta {
                        delta = least[j]
                        next = j
                    }
                }
                for j in 0...n {
                    if used[j] {
                        u[owner[j]] += delta
                        v[j] -= delta
                    } else {
                        least[j] -= delta
                    }
                }
                column = next
            } while owner[column] != 0
            repeat {
                let previous = way[column]
                owner[column] = owner[previous]
                column = previous
            } while column != 0
        }
        var pairs = [Int?](repeating: nil, count: rows)
        for j in 1...n where owner[j] >= 1 && owner[j] <= rows && j <= columns { pairs[owner[j] - 1] = j - 1 }
        return pairs
    }
}
