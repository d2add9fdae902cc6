import ArgumentParser
import OpenSpeech

/// `transcribe --format`: one of the transcript's documents, or `all` of them (one file each).
enum OutputFormat: String, CaseIterable, ExpressibleByArgument {
    case text, srt, vtt, json, tsv, all

    /// The documents written.
    var formats: [Transcript.Format] {
        self == .all ? Transcript.Format.allCases : [Transcript.Format(rawValue: rawValue)!]
    }

    /// Whether the documents need word times (subtitles are cut from them; JSON lists them).
    var needsWordTimes: Bool { self != .text && self != .tsv }
}

extension Transcript.Format {
    /// The file name extension.
    var fileExtension: String { self == .text ? "txt" : rawValue }
}
