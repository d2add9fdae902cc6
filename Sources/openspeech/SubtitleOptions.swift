import ArgumentParser
import OpenSpeech

/// `transcribe`'s subtitle options: how SRT and WebVTT cues are cut (whisper's CLI names, dashed).
struct SubtitleOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: "Characters a line at most; 0 keeps one cue per transcript segment.")
    var maxLineWidth: Int = 42

    @Option(parsing: .unconditional, help: "Lines a cue at most.")
    var maxLineCount: Int = 2

    @Option(parsing: .unconditional, help: "Seconds a cue at most.")
    var maxCueDuration: Double = 7

    @Option(parsing: .unconditional, help: "Seconds between cues at least (a cue ends earlier, never later than its last word).")
    var minCueGap: Double = 0.08

    @Flag(help: "WebVTT only: each word's start as a timestamp tag (<00:00:01.200>), for players that highlight it.")
    var highlightWords = false

    var layout: SubtitleLayout {
        SubtitleLayout(maxLineWidth: maxLineWidth, maxLineCount: maxLineCount, maxCueDuration: maxCueDuration,
                       minCueGap: minCueGap)
    }

    func validate() throws {
        guard maxLineWidth >= 0, maxLineCount >= 1 else {
            throw ValidationError("--max-line-width must be 0 or more and --max-line-count 1 or more.")
        }
        guard maxCueDuration > 0, maxCueDuration.isFinite, minCueGap >= 0, minCueGap < maxCueDuration else {
            throw ValidationError("--max-cue-duration must be above 0 and --min-cue-gap from 0 to below it.")
        }
    }
}
