import Foundation
import OpenSpeech

/// The `diarized_json` answer, in the shape the official `openai` package reads as `TranscriptionDiarized`:
/// `{"task": "transcribe", "duration", "text", "segments": [{"type": "transcript.text.segment", "id", "start", "end",
/// "text", "speaker"}]}`. Segments are the transcript's after `Transcript.attributingSpeakers` (split where the speaker
/// changes, so each has one); ids are `seg_0`, `seg_1`... The optional `usage` (OpenAI's billing) is left out.
struct DiarizedJSONDocument: Encodable {
    /// One segment; also, alone, a `transcript.text.segment` event of a streamed diarized transcription (the same
    /// fields as `TranscriptionTextSegmentEvent`).
    struct Segment: Encodable {
        var type = "transcript.text.segment"
        var id: String
        var start: Double
        var end: Double
        var text: String
        var speaker: String
    }

    var task = "transcribe"
    var duration: Double
    var text: String
    var segments: [Segment]

    /// The document of `transcript`, whose segments carry speakers; a segment without one (no speaker was heard
    /// near it) gets `unlabelled`. Segments without text are left out.
    init(_ transcript: Transcript, unlabelled: String) {
        duration = transcript.duration
        text = transcript.text
        segments = Self.segments(of: transcript, unlabelled: unlabelled)
    }

    /// The segments of `transcript`, numbered as the document numbers them.
    static func segments(of transcript: Transcript, unlabelled: String) -> [Segment] {
        var segments: [Segment] = []
        for segment in transcript.segments {
            let text = segment.text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !text.isEmpty else { continue }
            segments.append(Segment(id: "seg_\(segments.count)", start: segment.start, end: segment.end, text: text,
                                    speaker: segment.speaker ?? unlabelled))
        }
        return segments
    }

    /// One line of JSON. Throws `EncodingError` for a time that is not a finite number.
    static func json(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
