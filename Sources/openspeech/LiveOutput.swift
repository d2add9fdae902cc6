import Foundation
import OpenSpeech

/// How live results are written: on a terminal the volatile tail is redrawn in place (dimmed) and finals are
/// committed line by line; as text, finals line by line; as JSON Lines, one object per result.
enum LiveFormat: String, CaseIterable, Sendable {
    case text, jsonl
}

/// One result as a JSON Lines record; with speakers, `speaker` is who says most of it and each word has its own.
struct LiveResultRecord: Codable, Equatable {
    struct Word: Codable, Equatable {
        var word: String
        var start: Double
        var end: Double
        var speaker: String?
    }

    var text: String
    var isFinal: Bool
    var start: Double
    var end: Double
    var words: [Word]
    var speaker: String?

    /// `parts`: the result's segments with speakers (`LiveSpeakers`), nil without speakers.
    init(_ result: SpeechTranscriber.Result, speakers parts: [Transcript.Segment]? = nil) {
        let segment = Transcript.Segment(result)
        text = segment.text
        isFinal = result.isFinal
        start = segment.start
        end = segment.end
        let labelled = parts?.flatMap(\.words)
        if let labelled, labelled.count == segment.words.count {
            words = labelled.map { Word(word: $0.word, start: $0.start, end: $0.end, speaker: $0.speaker) }
        } else {
            words = segment.words.map { Word(word: $0.word, start: $0.start, end: $0.end) }
        }
        // Who speaks longest in it (parts are runs of one speaker).
        var seconds: [String: Double] = [:]
        for part in parts ?? [] { if let speaker = part.speaker { seconds[speaker, default: 0] += part.end - part.start } }
        speaker = parts?.compactMap(\.speaker).max { seconds[$0]! < seconds[$1]! }
    }
}

/// Writes live results to stdout (and finals to `--output`). Used by one task at a time.
final class LiveOutput {
    private enum Style { case terminal, lines, jsonl }
    private let style: Style
    private let file: Int32?
    private var volatileShown = false
    /// The speaker of the last final text written (text with speakers: a speaker line at each change).
    private var lastSpeaker: String?
    private let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// `format` nil: the terminal style when stdout is a terminal, else JSON Lines. `outputPath`: a file finals are
    /// appended to, each line written through to the disk before the next result.
    init(format: LiveFormat?, outputPath: String?) throws {
        let terminal = isatty(STDOUT_FILENO) != 0
        switch format {
        case .jsonl: style = .jsonl
        case .text: style = terminal ? .terminal : .lines
        case nil: style = terminal ? .terminal : .jsonl
        }
        if let outputPath {
            let descriptor = open(outputPath, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else {
                throw CommandFailure("cannot open \(outputPath) for appending: \(String(cString: strerror(errno))).")
            }
            file = descriptor
        } else {
            file = nil
        }
    }

    deinit { if let file { close(file) } }

    /// Writes `result`; `speakers` (its segments with speakers, from `LiveSpeakers`) labels it, nil: no speakers.
    func show(_ result: SpeechTranscriber.Result, speakers: [Transcript.Segment]? = nil) throws {
        var text = String(result.text.characters).trimmingCharacters(in: .whitespaces)
        if result.isFinal, let speakers { text = speakerLines(speakers) }
        switch style {
        case .jsonl:
            write(String(decoding: try encoder.encode(LiveResultRecord(result, speakers: speakers)), as: UTF8.self) + "\n")
        case .lines:
            if result.isFinal, !text.isEmpty { write(text + "\n") }
        case .terminal:
            if result.isFinal {
                guard !text.isEmpty || volatileShown else { break }
                write("\r\u{1B}[K" + (text.isEmpty ? "" : text + "\n"))
                volatileShown = false
            } else {
                write("\r\u{1B}[K\u{1B}[2m" + Self.tail(text, width: Self.terminalWidth() - 1) + "\u{1B}[0m")
                volatileShown = !text.isEmpty
            }
        }
        if result.isFinal, !text.isEmpty, let file { try append(text + "\n", to: file) }
    }

    /// A final's text with a line naming the speaker (after a blank line, as in `transcribe --diarize`'s text) wherever
    /// the speaker changes from the last final written.
    private func speakerLines(_ parts: [Transcript.Segment]) -> String {
        var lines: [String] = []
        for part in parts where !part.text.isEmpty {
            let speaker = part.speaker ?? "Unknown speaker"
            if speaker != lastSpeaker {
                if lastSpeaker != nil || !lines.isEmpty { lines.append("") }
                lines.append(speaker)
                lastSpeaker = speaker
            }
            lines.append(part.text)
        }
        return lines.joined(separator: "\n")
    }

    /// Clears a volatile line left on the terminal.
    func finish() {
        if volatileShown { write("\r\u{1B}[K") }
        volatileShown = false
    }

    private func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    private func append(_ text: String, to file: Int32) throws {
        let bytes = Array(text.utf8)
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { Glibc.write(file, $0.baseAddress, $0.count) }
            guard count > 0 else { throw CommandFailure("writing --output failed: \(String(cString: strerror(errno))).") }
            written += count
        }
        fsync(file)
    }

    /// The end of `text` that fits in `width` columns.
    static func tail(_ text: String, width: Int) -> String {
        text.count <= width ? text : "…" + text.suffix(max(width - 1, 1))
    }

    static func terminalWidth() -> Int {
        var size = winsize()
        return ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0 && size.ws_col > 0 ? Int(size.ws_col) : 80
    }
}
