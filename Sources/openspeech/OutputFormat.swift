import ArgumentParser
import OpenSpeech

/// `transcribe --format`: one of the transcript's documents, or `all` of them (one file each).
enum OutputFormat: String, CaseIterable, ExpressibleByArgument {
    case text, srt, vtt, json, tsv, all

    /// The format a file name's extension stands for (`txt`, `srt`, `vtt`, `json`, `tsv`), if any.
    init?(fileExtension: String) {
        guard let format = Transcript.Format.allCases.first(where: { $0.fileExtension == fileExtension.lowercased() }) else {
            return nil
        }
        self.init(rawValue: format.rawValue)
    }

    /// The documents written.
    var formats: [Transcript.Format] {
        self == .all ? Transcript.Format.allCases : [Transcript.Format(rawValue: rawValue)!]
    }

    /// Whether the documents need word times (subtitles are cut from them).
    var needsWordTimes: Bool { self == .srt || self == .vtt || self == .all }
}

extension Transcript.Format {
    /// The file name extension.
    var fileExtension: String { self == .text ? "txt" : rawValue }

    /// What the document is, for messages ("SRT subtitles").
    var documentName: String {
        switch self {
        case .text: "text"
        case .srt: "SRT subtitles"
        case .vtt: "WebVTT subtitles"
        case .json: "JSON transcript"
        case .tsv: "TSV transcript"
        }
    }
}
