import Foundation

/// A transcript as SubRip (`.srt`) subtitles: numbered cues cut by `SubtitleCues`. Not in Apple's API.
public struct SubRipDocument: Sendable {
    /// The subtitle cues, in order.
    public var cues: [SubtitleCue]

    /// The SubRip document of `transcript`, its segments cut into cues within `layout`.
    public init(_ transcript: Transcript, layout: SubtitleLayout = SubtitleLayout()) {
        cues = SubtitleCues(layout: layout, language: transcript.language).cues(for: transcript.segments)
    }

    /// The document: cues numbered from 1, `HH:MM:SS,mmm --> HH:MM:SS,mmm`, a blank line after each.
    public var text: String {
        cues.enumerated().map { index, cue in
            "\(index + 1)\n\(Transcript.clock(cue.start, comma: true)) --> \(Transcript.clock(cue.end, comma: true))\n"
                + cue.lines.map { Self.line($0.text) }.joined(separator: "\n") + "\n"
        }.joined(separator: "\n")
    }

    /// A line as SubRip shows it: no blank line (which would end the cue) and no `-->`.
    static func line(_ text: String) -> String {
        let text = text.replacingOccurrences(of: "-->", with: "->")
        return text.allSatisfy(\.isWhitespace) ? "-" : text
    }
}
