import Foundation
import SpeechAudio
import SpeechEngine

/// Turns the engine's words and segments into `SpeechTranscriber.Result`s: attributed text whose runs carry
/// `audioTimeRange` and `transcriptionConfidence` as the attribute options ask, repetition loops cut, profanity
/// masked when asked, the session's first text without Whisper's leading space. Times are timeline seconds.
struct TranscriptionResultBuilder {
    let timeRangeAttributes: Bool
    let confidence: Bool
    let etiquette: Bool
    /// Final results carry the other hypotheses' texts as alternatives.
    let alternatives: Bool
    /// Whether any text has been given yet (the first loses its leading space).
    private(set) var gaveText = false

    /// The locale results are written for: Chinese text is converted to its script (`ChineseScript`).
    let locale: Locale
    /// The script of text whose caller names no language (the locale's), when it is Chinese.
    private let localeScript: ChineseScript?

    init(settings: TranscriptionProcessor.Settings) {
        locale = settings.locale
        localeScript = LocaleModelResolver.whisperLanguage(of: settings.locale)
            .flatMap { ChineseScript.target(language: $0, locale: settings.locale) }
        timeRangeAttributes = settings.timeRangeAttributes
        confidence = settings.confidence
        etiquette = settings.etiquette
        alternatives = settings.alternatives
    }

    /// A final result for `words` (or, without words, `text`) in the detected `language` (nil: the locale's) covering
    /// `start...end`; nil when nothing is left of the text once repetition loops are cut. `others`: the engine's texts
    /// for it, its own first. The text returned is the engine's (before any script conversion), for the next prompt.
    mutating func final(words: [Word]?, text: String, start: Double, end: Double, confidence value: Double,
                        others: [String]? = nil, statistics: SegmentStatistics? = nil, language: String? = nil)
        -> (result: SpeechTranscriber.Result, text: String)? {
        let (words, text) = RepetitionGuard.cut(words: words, text: text)
        guard !text.trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
        let script = script(of: language)
        let best = attributed(words: words.map { script?.convert($0) ?? $0 }, text: script?.convert(text) ?? text,
                              start: start, end: end, confidence: value)
        let range = CMTimeRange(start: Self.time(start), end: Self.time(max(end, start)))
        let rest = alternatives ? otherAlternatives(others, script: script, start: start, end: end) : []
        gaveText = true
        return (SpeechTranscriber.Result(range: range, resultsFinalizationTime: range.end,
                                         alternatives: marked(([best.text] + rest).distinctTexts(), language),
                                         segmentStatistics: statistics, words: best.words, language: language), text)
    }

    /// A final result for a segment of the engine, in the detected `language` (nil: the locale's).
    mutating func final(_ segment: Segment, language: String? = nil) -> (result: SpeechTranscriber.Result, text: String)? {
        final(words: segment.words, text: segment.text, start: segment.start, end: segment.end,
              confidence: exp(segment.avgLogProb), others: segment.alternatives,
              statistics: SegmentStatistics(seek: segment.seek, tokens: segment.tokens, avgLogProb: segment.avgLogProb,
                                            compressionRatio: segment.compressionRatio,
                                            noSpeechProb: segment.noSpeechProb, temperature: segment.temperature),
              language: language)
    }

    /// A volatile result showing `words` in the detected `language` (nil: the locale's; none: clearing what was shown) from
    /// `start` to the audio's `end`, final through `start`.
    func volatile(_ words: [Word], start: Double, end: Double, language: String? = nil) -> SpeechTranscriber.Result {
        let startTime = Self.time(start), endTime = Self.time(end)
        let shown = words.isEmpty ? (text: AttributedString(), words: [])
            : attributed(words: script(of: language)?.convert(words) ?? words, text: nil, start: start,
                         end: words.last!.end, confidence: nil)
        return SpeechTranscriber.Result(range: CMTimeRange(start: startTime, end: max(endTime, startTime)),
                                        resultsFinalizationTime: startTime, alternatives: marked([shown.text], language),
                                        words: shown.words, language: language)
    }

    /// The engine's texts after the first, cleaned as the best one is, without repetition loops or blanks: plain
    /// text, with the result's time range over all of it when asked (the words' times are the best one's only).
    private func otherAlternatives(_ texts: [String]?, script: ChineseScript?, start: Double, end: Double) -> [AttributedString] {
        (texts ?? []).dropFirst().compactMap { text in
            let text = RepetitionGuard.cut(words: nil, text: text).text
            guard !text.trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
            return attributed(words: nil, text: script?.convert(text) ?? text, start: start, end: end, confidence: nil).text
        }
    }

    /// `texts` with `language` (when detected) as their `detectedLanguage` attribute.
    private func marked(_ texts: [AttributedString], _ language: String?) -> [AttributedString] {
        guard let language else { return texts }
        return texts.map { text in
            var text = text
            text.detectedLanguage = language
            return text
        }
    }

    /// The script text in `language` (nil: the locale's) is written in, when it is Chinese.
    private func script(of language: String?) -> ChineseScript? {
        language.map { ChineseScript.target(language: $0, locale: locale) } ?? localeScript
    }

    /// Text with word runs carrying `audioTimeRange` and `transcriptionConfidence` as the options ask, and the same
    /// words as values: each run with a time range, trimmed (none when the text is one run).
    private func attributed(words: [Word]?, text: String?, start: Double, end: Double, confidence value: Double?)
        -> (text: AttributedString, words: [Transcript.Word]) {
        if let words, !words.isEmpty, timeRangeAttributes || confidence {
            var result = AttributedString()
            var timed: [Transcript.Word] = []
            for (index, word) in words.enumerated() {
                let cleaned = clean(word.word, first: index == 0)
                var piece = AttributedString(cleaned)
                let probability = confidence ? min(max(word.probability, 0), 1) : nil
                if timeRangeAttributes {
                    // A word's range lies within its result's (an alignment may put a word's edge a frame over the
                    // end of the final before).
                    let wordStart = min(max(word.start, start), max(end, start))
                    let range = CMTimeRange(start: Self.time(wordStart),
                                            end: Self.time(min(max(word.end, wordStart), max(end, start))))
                    piece.audioTimeRange = range
                    let trimmed = cleaned.trimmingCharacters(in: .whitespaces)
                    if !trimmed.isEmpty {
                        timed.append(Transcript.Word(start: range.start.seconds, end: range.end.seconds, word: trimmed,
                                                     confidence: probability))
                    }
                }
                piece.transcriptionConfidence = probability
                result += piece
            }
            return (result, timed)
        }
        var piece = AttributedString(clean(text ?? (words ?? []).map(\.word).joined(), first: true))
        if timeRangeAttributes {
            piece.audioTimeRange = CMTimeRange(start: Self.time(start), end: Self.time(max(end, start)))
        }
        if confidence, let value { piece.transcriptionConfidence = min(max(value, 0), 1) }
        return (piece, [])
    }

    /// The session's first text loses Whisper's leading space; profanity is masked if asked.
    private func clean(_ text: String, first: Bool) -> String {
        var text = text
        if first && !gaveText { text = String(text.drop { $0 == " " }) }
        return etiquette ? EtiquetteFilter.mask(text) : text
    }

    static func time(_ seconds: Double) -> CMTime {
        CMTime(seconds: max(seconds, 0), preferredTimescale: Int32(TranscriptionProcessor.rate))
    }
}
