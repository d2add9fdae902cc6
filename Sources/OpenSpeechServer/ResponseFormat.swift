import Foundation
import OpenSpeech

/// The documents a transcription is answered as, in OpenAI's shapes. Text, SRT and WebVTT are the library's
/// `Transcript.formatted(as:)`; `json` is `{"text"}`; `verbose_json` adds the language, duration, segments and
/// (with word granularity) words.
enum ResponseFormat: String, Sendable {
    case json, text, srt, vtt
    case verboseJSON = "verbose_json"

    var contentType: String {
        switch self {
        case .json, .verboseJSON: "application/json"
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
            let segments = request.segmentTimestamps ? transcript.segments.enumerated().map { index, segment in
                VerboseBody.Segment(id: index, seek: Int((segment.start * 100).rounded()), start: segment.start,
                                    end: segment.end, text: segment.text)
            } : nil
            let words = request.wordTimestamps ? transcript.segments.flatMap(\.words).map {
                VerboseBody.Word(word: $0.word, start: $0.start, end: $0.end)
            } : nil
            return try Self.encode(VerboseBody(
                task: request.task.rawValue, language: Self.languageName(transcript.language),
                duration: transcript.duration, text: transcript.text, segments: segments, words: words))
        }
    }

    /// OpenAI names the language in English words (`english`), as Whisper's tokenizer does.
    static func languageName(_ code: String) -> String {
        Locale(identifier: "en").localizedString(forLanguageCode: code)?.lowercased() ?? code
    }

    private static func encode(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    private struct TextBody: Encodable {
        let text: String
    }

    /// OpenAI's verbose transcription. Segments carry what the library's transcript holds (id, seek in
    /// centiseconds, start, end, text); the decoder's per-segment statistics (tokens, avg_logprob,
    /// compression_ratio, no_speech_prob, temperature) are not part of it and are left out rather than invented.
    private struct VerboseBody: Encodable {
        struct Segment: Encodable {
            let id: Int
            let seek: Int
            let start: Double
            let end: Double
            let text: String
        }
        struct Word: Encodable {
            let word: String
            let start: Double
            let end: Double
        }
        let task: String
        let language: String
        let duration: Double
        let text: String
        let segments: [Segment]?
        let words: [Word]?
    }
}
