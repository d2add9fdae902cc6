import Foundation

/// A transcript as tab-separated values, as whisper's command line writes them: a `start`, `end`, `text` header,
/// then one row per segment with its times in integer milliseconds; with speakers (diarization), a `speaker` column
/// after `end`. Not in Apple's API.
public struct TabSeparatedDocument: Sendable {
    /// The transcript's segments, one row each.
    public var segments: [Transcript.Segment]

    /// The tab-separated document of `transcript`.
    public init(_ transcript: Transcript) {
        segments = transcript.segments
    }

    /// The document: a header row, then each segment's start and end in milliseconds and its trimmed text.
    public var text: String {
        let speakers = segments.contains { $0.speaker != nil }
        return (speakers ? "start\tend\tspeaker\ttext\n" : "start\tend\ttext\n") + segments.map { segment in
            let text = Self.cell(segment.text.trimmingCharacters(in: .whitespaces))
            let speaker = speakers ? Self.cell(segment.speaker ?? "") + "\t" : ""
            return "\(Self.milliseconds(segment.start))\t\(Self.milliseconds(segment.end))\t\(speaker)\(text)\n"
        }.joined()
    }

    /// A value on one cell: no tab, no line break.
    static func cell(_ text: String) -> String {
        text.replacingOccurrences(of: "\t", with: " ").replacingOccurrences(of: "\n", with: " ")
    }

    static func milliseconds(_ seconds: Double) -> Int {
        seconds.isFinite ? Int((max(seconds, 0) * 1000).rounded()) : 0
    }
}
