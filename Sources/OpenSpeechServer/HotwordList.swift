import Foundation

/// Reads a `hotwords` field: words and phrases for the decoder to favour (the library's contextual strings),
/// independent of `prompt`. As faster-whisper-server and speaches take it: one string, comma-separated phrases
/// (`"Kubernetes, Hummingbird, Zoë Quinn"`) or, without commas, space-separated words (`"Kubernetes Hummingbird"`).
enum HotwordList {
    /// The phrases of `text`, trimmed, empty ones and repeats left out, in order.
    static func parse(_ text: String) -> [String] {
        let pieces = text.contains(",")
            ? text.split(separator: ",").map(String.init)
            : text.split(whereSeparator: { $0.isWhitespace }).map(String.init)
        return clean(pieces)
    }

    /// `phrases` trimmed, empty ones and repeats left out, in order.
    static func clean(_ phrases: [String]) -> [String] {
        var seen = Set<String>()
        return phrases.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            .filter { !$0.isEmpty && seen.insert($0).inserted }
    }
}
