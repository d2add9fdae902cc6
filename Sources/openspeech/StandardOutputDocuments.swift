import Foundation
import OpenSpeech

/// Several inputs' documents on stdout, one after the other, joined the way the format lets one stream hold several,
/// so what is written stays valid: text as it is; SubRip as one document (a blank line between, the cues numbered
/// on); WebVTT as one document (one header, a `NOTE` naming each input before its cues); JSON as JSON Lines (one
/// compact `verbose_json` object a line); TSV with one header. A single input's document is written as it is.
struct StandardOutputDocuments {
    let format: Transcript.Format
    /// Whether several inputs write to stdout.
    let several: Bool
    private var cuesWritten = 0
    private var started = false

    init(format: Transcript.Format, several: Bool) {
        self.format = format
        self.several = several
    }

    /// The text to write for `transcript` of `input`, after the documents before it.
    mutating func next(_ transcript: Transcript, input: String, layout: SubtitleLayout, highlightWords: Bool,
                       words: Bool) throws -> String {
        defer { started = true }
        guard several else {
            return try transcript.formatted(as: format, layout: layout, highlightWords: highlightWords, words: words)
        }
        switch format {
        case .text:
            return transcript.text + "\n"
        case .srt:
            let document = SubRipDocument(transcript, layout: layout)
            defer { cuesWritten += document.cues.count }
            guard !document.cues.isEmpty else { return "" }
            return (cuesWritten > 0 ? "\n" : "") + document.text(numberingFrom: cuesWritten + 1)
        case .vtt:
            let blocks = WebVTTDocument(transcript, layout: layout, highlightsWords: highlightWords).cueBlocks
            let name = input.replacingOccurrences(of: "-->", with: "->").replacingOccurrences(of: "\n", with: " ")
            return (started ? "\n" : "WEBVTT\n\n") + "NOTE \(name)\n" + (blocks.isEmpty ? "" : "\n" + blocks)
        case .json:
            return try VerboseJSONDocument(transcript, words: words).json(pretty: false) + "\n"
        case .tsv:
            let document = TabSeparatedDocument(transcript).text
            return started ? String(document.drop { $0 != "\n" }.dropFirst()) : document
        }
    }
}
