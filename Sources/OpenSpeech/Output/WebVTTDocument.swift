import Foundation

/// A transcript as WebVTT (`.vtt`) subtitles: cues cut by `SubtitleCues`, optionally with each word's start as a
/// timestamp tag (`<00:00:01.200>`) so players can highlight the word being said; with speakers (diarization), each
/// cue in the speaker's voice span (`<v Speaker 1>`). Not in Apple's API.
public struct WebVTTDocument: Sendable {
    /// The subtitle cues, in order.
    public var cues: [SubtitleCue]
    /// Whether each word after a cue's first carries its start time as a timestamp tag.
    public var highlightsWords: Bool
    /// What separates two words on a line (nothing in languages written without spaces).
    private let wordSeparator: String

    /// The WebVTT document of `transcript`, its segments cut into cues within `layout`.
    public init(_ transcript: Transcript, layout: SubtitleLayout = SubtitleLayout(), highlightsWords: Bool = false) {
        let cutter = SubtitleCues(layout: layout, language: transcript.language)
        cues = cutter.cues(for: transcript.segments)
        wordSeparator = cutter.wordSeparator
        self.highlightsWords = highlightsWords
    }

    /// The document: `WEBVTT`, then `cueBlocks`.
    public var text: String { "WEBVTT\n\n" + cueBlocks }

    /// The cues without the header: each cue's `HH:MM:SS.mmm --> HH:MM:SS.mmm` and lines, a blank line between two
    /// (what follows other blocks in one WebVTT stream).
    public var cueBlocks: String {
        cues.map { cue in
            "\(Transcript.clock(cue.start, comma: false)) --> \(Transcript.clock(cue.end, comma: false))\n"
                + voiced(lines(of: cue), speaker: cue.speaker).joined(separator: "\n") + "\n"
        }.joined(separator: "\n")
    }

    /// The cue's lines, escaped; with highlighting, a tag before each word whose start lies strictly after the
    /// cue's start (and the previous tag) and before its end, as WebVTT requires of timestamp tags.
    private func lines(of cue: SubtitleCue) -> [String] {
        guard highlightsWords else { return cue.lines.map { Self.escaped($0.text) } }
        var last = Transcript.clock(cue.start, comma: false)
        let end = Transcript.clock(cue.end, comma: false)
        return cue.lines.map { line in
            guard !line.words.isEmpty else { return Self.escaped(line.text) }
            return line.words.map { word in
                let tag = Transcript.clock(word.start, comma: false)
                guard tag > last && tag < end else { return Self.escaped(word.word) }
                last = tag
                return "<\(tag)>" + Self.escaped(word.word)
            }.joined(separator: wordSeparator)
        }
    }

    /// `lines` in `speaker`'s voice span, which the cue's end closes.
    private func voiced(_ lines: [String], speaker: String?) -> [String] {
        guard let speaker, !lines.isEmpty else { return lines }
        let name = Self.escaped(speaker).replacingOccurrences(of: "\n", with: " ")
        return ["<v \(name)>" + lines[0]] + lines.dropFirst()
    }

    /// Cue text with `&`, `<` and `>` escaped, and never blank (a blank line ends a cue).
    static func escaped(_ text: String) -> String {
        let text = text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
        return text.allSatisfy(\.isWhitespace) ? "-" : text
    }
}
