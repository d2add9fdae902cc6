import Foundation

/// A transcript as SubRip (`.srt`) subtitles: numbered cues cut by `SubtitleCues`; with speakers (diarization), a
/// cue whose speaker differs from the cue before starts with the speaker's name in brackets. Not in Apple's API.
public struct SubRipDocument: Sendable {
    /// The subtitle cues, in order.
    public var cues: [SubtitleCue]

    /// The SubRip document of `transcript`, its segments cut into cues within `layout`.
    public init(_ transcript: Transcript, layout: SubtitleLayout = SubtitleLayout()) {
        cues = SubtitleCues(layout: layout, language: transcript.language).cues(for: transcript.segments)
    }

    /// The document: cues numbered from 1, `HH:MM:SS,mmm --> HH:MM:SS,mmm`, a blank line between two.
    public var text: String { text(numberingFrom: 1) }

    /// The document with its cues numbered from `first`: what follows other cues in one SubRip stream (several
    /// recordings' subtitles on one output, a blank line between them).
    public func text(numberingFrom first: Int) -> String {
        cues.enumerated().map { index, cue in
            var lines = cue.lines.map { Self.line($0.text) }
            if let speaker = cue.speaker, index == 0 || cues[index - 1].speaker != speaker, !lines.isEmpty {
                lines[0] = "[\(speaker)] " + lines[0]
            }
            return "\(first + index)\n\(Transcript.clock(cue.start, comma: true)) --> \(Transcript.clock(cue.end, comma: true))\n"
                + lines.joined(separator: "\n") + "\n"
        }.joined(separator: "\n")
    }

    /// A line as SubRip shows it: no blank line (which would end the cue) and no `-->`.
    static func line(_ text: String) -> String {
        let text = text.replacingOccurrences(of: "-->", with: "->")
        return text.allSatisfy(\.isWhitespace) ? "-" : text
    }
}
