import Foundation
import OpenSpeech

/// The documents a transcription is answered as, in OpenAI's shapes. Text, SRT and WebVTT are the library's
/// `Transcript.formatted(as:)` (cues cut from word times as the CLI's); `json` is `{"text"}`; `verbose_json` is the
/// library's `VerboseJSONDocument` (the CLI's `--format json`), segments and words as the granularities ask;
/// `diarized_json` is `DiarizedJSONDocument`. With speakers (`SpeakerRequest`), text, SRT, WebVTT and `verbose_json`
/// carry them as the CLI's `--diarize` does (a line at each change, `[A]` at changes, voice tags, `speaker` fields).
enum ResponseFormat: String, Sendable {
    case json, text, srt, vtt
    case verboseJSON = "verbose_json"
    case diarizedJSON = "diarized_json"

    /// The names as the refusal of another lists them.
    static let names = "json, text, srt, vtt, verbose_json, diarized_json"

    var contentType: String {
        switch self {
        case .json, .verboseJSON, .diarizedJSON: "application/json"
        case .text: "text/plain; charset=utf-8"
        case .srt: "application/x-subrip; charset=utf-8"
        case .vtt: "text/vtt; charset=utf-8"
        }
    }

    func document(_ transcript: Transcript, request: TranscriptionRequest) throws -> String {
        switch self {
        case .text: return try transcript.formatted(as: .text)
        case .srt: return try transcript.formatted(as: .srt)
        case .vtt: return try transcript.formatted(as: .vtt)
        case .json: return try Self.encode(TextBody(text: transcript.text))
        case .verboseJSON:
            return try VerboseJSONDocument(transcript, task: request.task.rawValue, segments: request.segmentTimestamps,
                                           words: request.wordTimestamps).json(pretty: false)
        case .diarizedJSON:
            return try DiarizedJSONDocument.json(DiarizedJSONDocument(
                transcript, unlabelled: OpenAISpeakerLabels.unlabelled(names: request.speakers?.names ?? [])))
        }
    }

    private static func encode(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    private struct TextBody: Encodable {
        let text: String
    }
}
