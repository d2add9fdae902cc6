import Foundation

/// Reads a `hotwords` field: words and phrases for the decoder to favour (the library's contextual strings),
/// independent of `prompt`. As faster-whisper-server and speaches take it: one string, comma-separated phrases
/// (`"Kubernetes, Hummingbird, Zoë Quinn"`) or, without commas, space-separated words (`"Kubernetes Hummingbird"`).
/// At most `maxCount` phrases of at most `maxLength` characters each: more is refused with a sentence saying so (a
/// vocabulary that large boosts nothing in particular, and each phrase costs decoding time).
enum HotwordList {
    static let maxCount = 200
    static let maxLength = 64

    /// Why a list was refused.
    struct Refusal: Error {
        let message: String
    }

    /// The phrases of `text`, trimmed, empty ones and repeats left out, in order.
    static func parse(_ text: String) throws(Refusal) -> [String] {
        let pieces = text.contains(",")
            ? text.split(separator: ",", omittingEmptySubsequences: true)
            : text.split(whereSeparator: { $0.isWhitespace })
        // Counted before any copy: a megabyte of commas is refused without making a million strings.
        guard pieces.count <= maxCount * 2 else { throw tooMany(pieces.count) }
        return try clean(pieces.map(String.init))
    }

    /// `phrases` trimmed, empty ones and repeats left out, in order.
    static func clean(_ phrases: [String]) throws(Refusal) -> [String] {
        // Empty pieces and repeats do not count, up to a point.
        guard phrases.count <= maxCount * 2 else { throw tooMany(phrases.count) }
        var seen = Set<String>()
        let kept = phrases.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            .filter { !$0.isEmpty && seen.insert($0).inserted }
        guard kept.count <= maxCount else { throw tooMany(kept.count) }
        if let long = kept.first(where: { $0.count > maxLength }) {
            throw Refusal(message: "A hotword is at most \(maxLength) characters long; `\(long.prefix(24))…` has "
                          + "\(long.count).")
        }
        return kept
    }

    private static func tooMany(_ count: Int) -> Refusal {
        Refusal(message: "At most \(maxCount) hotwords are taken; this list has \(count).")
    }
}
