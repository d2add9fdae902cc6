/// The limits subtitle cues are cut to: characters a line, lines a cue, seconds a cue, and the smallest gap left
/// between two cues. Not in Apple's API. The defaults are common subtitle conventions (and those of the tools
/// people compare against: whisper's `--max_line_width`, stable-ts, WhisperX).
public struct SubtitleLayout: Sendable, Equatable {
    /// Characters a line at most; a single word longer than this has a line of its own. 0: no cutting, one cue
    /// per transcript segment on one line, at the segment's times.
    public var maxLineWidth: Int
    /// Lines a cue at most.
    public var maxLineCount: Int
    /// Seconds from a cue's first word's start to its last word's end, at most (a single word may last longer).
    public var maxCueDuration: Double
    /// Seconds between the end of a cue and the start of the next, at least: a cue whose words run closer to the
    /// next cue's ends earlier (never later than its last word's end).
    public var minCueGap: Double

    /// A layout with these limits; the defaults are 42 characters, 2 lines, 7 seconds and an 80 ms gap.
    public init(maxLineWidth: Int = 42, maxLineCount: Int = 2, maxCueDuration: Double = 7, minCueGap: Double = 0.08) {
        self.maxLineWidth = maxLineWidth
        self.maxLineCount = maxLineCount
        self.maxCueDuration = maxCueDuration
        self.minCueGap = minCueGap
    }

    /// Whole segments: today's cues, one per segment (`maxLineWidth` 0).
    public static let wholeSegments = SubtitleLayout(maxLineWidth: 0)
}
