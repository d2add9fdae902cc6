import Foundation
import SpeechAudio

/// A finished transcription as documents people use: plain text, SubRip and WebVTT subtitles, tab-separated
/// values, JSON (OpenAI's `verbose_json` shape).
/// Not in Apple's API; built from final `SpeechTranscriber` results, so the CLI and the server share it.
public struct Transcript: Sendable, Codable, Equatable {
    /// A word with its time range (seconds) and, when asked, the decoder's probability for it.
    public struct Word: Sendable, Codable, Equatable {
        /// Seconds from the start of the audio at which the word starts.
        public var start: Double
        /// Seconds from the start of the audio at which the word ends.
        public var end: Double
        /// The word without surrounding spaces.
        public var word: String
        /// The decoder's probability for the word (0 to 1); nil unless results carried confidence attributes.
        public var confidence: Double?
        /// Who said the word (`attributingSpeakers(_:)`); nil without diarization. OpenSpeech extension.
        public var speaker: String? = nil
    }

    /// A final result: its time range (seconds), its text, its timed words (none without word times).
    public struct Segment: Sendable, Codable, Equatable {
        /// Seconds from the start of the audio at which the segment starts.
        public var start: Double
        /// Seconds from the start of the audio at which the segment ends.
        public var end: Double
        /// The segment's text, without leading or trailing spaces.
        public var text: String
        /// The segment's timed words, in order; empty when the transcription had no word times.
        public var words: [Word]
        /// What the decoder reported for the segment (nil for live results).
        public var statistics: SegmentStatistics?
        /// The segment's language as the transcriber detected it (its result's `detectedLanguage`, Whisper's code);
        /// nil when the language was given.
        public var language: String?
        /// Who speaks most during the segment (`attributingSpeakers(_:)`); nil without diarization. OpenSpeech extension.
        public var speaker: String? = nil
    }

    /// The document formats a transcript can be written as: plain text, SubRip, WebVTT, JSON and tab-separated values.
    public enum Format: String, Sendable, CaseIterable {
        /// Plain text, SubRip, WebVTT, OpenAI's `verbose_json` and tab-separated values.
        case text, srt, vtt, json, tsv
    }

    /// The whole transcription's text: the final results' texts joined, trimmed of surrounding spaces.
    public var text: String
    /// The language of the transcription, as a Whisper code such as `en`.
    public var language: String
    /// How sure language detection was of `language` (0 to 1); nil when the language was given, not detected.
    /// JSON: `language_probability`.
    public var languageProbability: Double?
    /// The audio's duration in seconds.
    public var duration: Double
    /// The final results, one segment each, in order.
    public var segments: [Segment]
    /// The catalog id of the model that transcribed the audio (nil when not known).
    public var model: String?

    enum CodingKeys: String, CodingKey {
        case text, language, duration, segments, model
        case languageProbability = "language_probability"
    }

    /// The transcript of final results (volatile ones are ignored), one segment each (`Segment(_:)`). `model` names
    /// the catalog model that transcribed them.
    public init(results: [SpeechTranscriber.Result], language: String, duration: Double, model: String? = nil) {
        let finals = results.filter(\.isFinal)
        segments = finals.map(Segment.init)
        self.text = finals.map { String($0.text.characters) }.joined().trimmingCharacters(in: .whitespaces)
        self.language = language
        self.duration = duration
        self.model = model
    }

    /// The transcript as a document in `format`: subtitles cut to `layout` (WebVTT with word timestamp tags when
    /// `highlightWords`), JSON as `VerboseJSONDocument` (its `words` list only when `words`). Throws `EncodingError`
    /// if JSON cannot represent it (a time that is not a finite number).
    public func formatted(as format: Format, layout: SubtitleLayout = SubtitleLayout(),
                          highlightWords: Bool = false, words: Bool = true) throws -> String {
        switch format {
        case .text: return speakerText ?? text + "\n"
        case .srt: return SubRipDocument(self, layout: layout).text
        case .vtt: return WebVTTDocument(self, layout: layout, highlightsWords: highlightWords).text
        case .tsv: return TabSeparatedDocument(self).text
        case .json: return try VerboseJSONDocument(self, words: words).json(pretty: true)
        }
    }

    /// `HH:MM:SS,mmm` (SubRip) or `HH:MM:SS.mmm` (WebVTT).
    static func clock(_ seconds: Double, comma: Bool) -> String {
        let milliseconds = Int((max(seconds, 0) * 1000).rounded())
        let (h, m, s, ms) = (milliseconds / 3_600_000, milliseconds / 60_000 % 60, milliseconds / 1000 % 60, milliseconds % 1000)
        return String(format: "%02d:%02d:%02d%@%03d", h, m, s, comma ? "," : ".", ms)
    }
}

extension Transcript.Segment {
    /// The segment a result holds: its range, its text trimmed, the words it carries with `audioTimeRange` (and
    /// their `transcriptionConfidence` when asked), its statistics and its detected language. Read from the
    /// values the transcriber made the result from, not parsed back out of its attributed text.
    public init(_ result: SpeechTranscriber.Result) {
        start = result.range.start.seconds
        end = result.range.end.seconds
        text = String(result.text.characters).trimmingCharacters(in: .whitespaces)
        words = result.words
        statistics = result.segmentStatistics
        language = result.language
    }
}
