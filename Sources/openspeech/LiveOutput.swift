import Foundation
import OpenSpeech

/// How live results are written: on a terminal the volatile tail is redrawn in place (dimmed) and finals are
/// committed line by line; as text, finals line by line; as JSON Lines, one object per result.
enum LiveFormat: String, CaseIterable, Sendable {
    case text, jsonl
}

/// One result as a JSON Lines record.
struct LiveResultRecord: Codable, Equatable {
    struct Word: Codable, Equatable {
        var word: String
        var start: Double
        var end: Double
    }

    var text: String
    var isFinal: Bool
    var start: Double
    var end: Double
    var words: [Word]

    init(_ result: SpeechTranscriber.Result) {
        let segment = Transcript.Segment(result)
        text = segment.text
        isFinal = result.isFinal
        start = segment.start
        end = segment.end
        words = segment.words.map { Word(word: $0.word, start: $0.start, end: $0.end) }
    }
}

/// Writes live results to stdout (and finals to `--output`). Used by one task at a time.
final class LiveOutput {
    private enum Style { case terminal, lines, jsonl }
    private let style: Style
    private let file: Int32?
    private var volatileShown = false
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

    func show(_ result: SpeechTranscriber.Result) throws {
        let text = String(result.text.characters).trimmingCharacters(in: .whitespaces)
        switch style {
        case .jsonl:
            write(String(decoding: try encoder.encode(LiveResultRecord(result)), as: UTF8.self) + "\n")
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
