import Foundation

/// A transcript in the shape of OpenAI's `verbose_json` transcription (task, language, duration, text, segments
/// with Whisper's per-segment statistics, words), so tools that read OpenAI's output read it. Not in Apple's API;
/// the CLI's `--format json` and the server's `verbose_json` are both this document.
public struct VerboseJSONDocument: Sendable, Encodable {
    /// One segment of the document, with Whisper's decoding statistics when the decoder reported them.
    public struct Segment: Sendable, Encodable, Equatable {
        /// The segment's index in the document, from 0.
        public var id: Int
        /// The 10 ms frame where the decoding window started (the segment's start when unknown).
        public var seek: Int
        /// Seconds from the start of the audio at which the segment starts.
        public var start: Double
        /// Seconds from the start of the audio at which the segment ends.
        public var end: Double
        /// The segment's text.
        public var text: String
        /// The decoder's statistics; absent for text the decoder did not report them for (live results).
        public var tokens: [Int]?
        /// The sampling temperature the segment was decoded at.
        public var temperature: Double?
        /// The mean log probability of the segment's tokens (JSON: `avg_logprob`).
        public var avgLogprob: Double?
        /// How much the text compresses, a repetition measure (JSON: `compression_ratio`).
        public var compressionRatio: Double?
        /// The model's probability that the window held no speech (JSON: `no_speech_prob`).
        public var noSpeechProb: Double?
        /// The segment's language when each window's was detected (`--detect-language-per-window`), named as the
        /// document's `language`; absent otherwise. Not in OpenAI's format (an OpenSpeech extension).
        public var language: String?
        /// Who speaks most during the segment, with diarization; absent otherwise. As OpenAI's `diarized_json` names it.
        public var speaker: String?

        enum CodingKeys: String, CodingKey {
            case id, seek, start, end, text, tokens, temperature, language, speaker
            case avgLogprob = "avg_logprob", compressionRatio = "compression_ratio", noSpeechProb = "no_speech_prob"
        }
    }

    /// A timed word of the document.
    public struct Word: Sendable, Encodable, Equatable {
        /// The word without surrounding spaces.
        public var word: String
        /// Seconds from the start of the audio at which the word starts.
        public var start: Double
        /// Seconds from the start of the audio at which the word ends.
        public var end: Double
        /// Who said the word, with diarization; absent otherwise.
        public var speaker: String?
    }

    /// `transcribe` or `translate`.
    public var task: String
    /// The language in English words (`english`), as OpenAI and Whisper's tokenizer name it.
    public var language: String
    /// How sure language detection was (0 to 1), as faster-whisper reports it; absent when the language was given.
    public var languageProbability: Double?
    /// The audio's duration in seconds.
    public var duration: Double
    /// The whole transcription's text.
    public var text: String
    /// The segments; absent when the document was made without them.
    public var segments: [Segment]?
    /// The timed words of all segments; absent when the document was made without them.
    public var words: [Word]?
    /// The catalog id of the model that transcribed the audio; absent when not known. Not in OpenAI's format (an
    /// OpenSpeech extension).
    public var model: String?

    enum CodingKeys: String, CodingKey {
        case task, language, duration, text, segments, words, model
        case languageProbability = "language_probability"
    }

    /// The document for `transcript` with `task` as given; `segments` and `words` choose whether those lists
    /// are present.
    public init(_ transcript: Transcript, task: String = "transcribe", segments: Bool = true, words: Bool = true) {
        self.task = task
        language = Self.languageName(transcript.language)
        languageProbability = transcript.languageProbability
        duration = transcript.duration
        text = transcript.text
        self.segments = segments ? transcript.segments.enumerated().map { index, segment in
            let statistics = segment.statistics
            return Segment(id: index, seek: statistics?.seek ?? Int((segment.start * 100).rounded()),
                           start: segment.start, end: segment.end, text: segment.text, tokens: statistics?.tokens,
                           temperature: statistics?.temperature, avgLogprob: statistics?.avgLogProb,
                           compressionRatio: statistics?.compressionRatio, noSpeechProb: statistics?.noSpeechProb,
                           language: segment.language.map(Self.languageName), speaker: segment.speaker)
        } : nil
        self.words = words ? transcript.segments.flatMap(\.words).map { Word(word: $0.word, start: $0.start, end: $0.end, speaker: $0.speaker) } : nil
        model = transcript.model
    }

    /// OpenAI names the language in English words (`english`), as Whisper's tokenizer does.
    public static func languageName(_ code: String) -> String {
        Locale(identifier: "en").localizedString(forLanguageCode: code)?.lowercased() ?? code
    }

    /// The JSON text: indented with sorted keys and a final newline when `pretty`, else on one line. Throws
    /// `EncodingError` for a time that is not a finite number.
    public func json(pretty: Bool) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self) + (pretty ? "\n" : "")
    }
}
