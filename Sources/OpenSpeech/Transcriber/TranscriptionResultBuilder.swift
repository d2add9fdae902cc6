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

    init(settings: TranscriptionProcessor.Settings) {
        timeRangeAttributes = settings.timeRangeAttributes
        confidence = settings.confidence
        etiquette = settings.etiquette
        alternatives = settings.alternatives
    }

    /// A final result for `words` (or, without words, `text`) covering `start...end`; nil when nothing is left of the
    /// text once repetition loops are cut. `others`: the engine's texts for it, its own first.
    mutating func final(words: [Word]?, text: String, start: Double, end: Double, confidence value: Double,
                        others: [String]? = nil, statistics: SegmentStatistics? = nil)
        -> (result: SpeechTranscriber.Result, text: String)? {
        let (words, text) = RepetitionGuard.cut(words: words, text: text)
        guard !text.trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
        let string = attributed(words: words, text: text, start: start, end: end, confidence: value)
        let range = CMTimeRange(start: Self.time(start), end: Self.time(max(end, start)))
        let rest = alternatives ? otherAlternatives(others, start: start, end: end) : []
        gaveText = true
        return (SpeechTranscriber.Result(range: range, resultsFinalizationTime: range.end,
                                         alternatives: ([string] + rest).distinctTexts(), segmentStatistics: statistics), text)
    }

    /// A final result for a segment of the engine.
    mutating func final(_ segment: Segment) -> (result: SpeechTranscriber.Result, text: String)? {
        final(words: segment.words, text: segment.text, start: segment.start, end: segment.end,
              confidence: exp(segment.avgLogProb), others: segment.alternatives,
              statistics: SegmentStatistics(seek: segment.seek, tokens: segment.tokens, avgLogProb: segment.avgLogProb,
                                            compressionRatio: segment.compressionRatio,
                                            noSpeechProb: segment.noSpeechProb, temperature: segment.temperature))
    }

    /// A volatile result showing `words` (none: clearing what was shown) from `start` to the audio's `end`,
    /// final through `start`.
    func volatile(_ words: [Word], start: Double, end: Double) -> SpeechTranscriber.Result {
        let startTime = Self.time(start), endTime = Self.time(end)
        let text = words.isEmpty ? AttributedString()
            : attributed(words: words, text: nil, start: start, end: words.last!.end, confidence: nil)
        return SpeechTranscriber.Result(range: CMTimeRange(start: startTime, end: max(endTime, startTime)),
                                        resultsFinalizationTime: startTime, alternatives: [text])
    }

    /// The engine's texts after the first, cleaned as the best one is, without repetition loops or blanks: plain
    /// text, with the result's time range over all of it when asked (the words' times are the best one's only).
    private func otherAlternatives(_ texts: [String]?, start: Double, end: Double) -> [AttributedString] {
        (texts ?? []).dropFirst().compactMap { text in
            let text = RepetitionGuard.cut(words: nil, text: text).text
            guard !text.trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
            return attributed(words: nil, text: text, start: start, end: end, confidence: nil)
        }
    }

    /// Text with word runs carrying `audioTimeRange` and `transcriptionConfidence` as the options ask.
    private func attributed(words: [Word]?, text: String?, start: Double, end: Double, confidence value: Double?) -> AttributedString {
        var result = AttributedString()
        if let words, !words.isEmpty, timeRangeAttributes || confidence {
            for (index, word) in words.enumerated() {
                var piece = AttributedString(clean(word.word, first: index == 0))
                if timeRangeAttributes {
                    piece.audioTimeRange = CMTimeRange(start: Self.time(word.start), end: Self.time(max(word.end, word.start)))
                }
                if confidence { piece.transcriptionConfidence = min(max(word.probability, 0), 1) }
                result += piece
            }
            return result
        }
        var piece = AttributedString(clean(text ?? (words ?? []).map(\.word).joined(), first: true))
        if timeRangeAttributes {
            piece.audioTimeRange = CMTimeRange(start: Self.time(start), end: Self.time(max(end, start)))
        }
        if confidence, let value { piece.transcriptionConfidence = min(max(value, 0), 1) }
        return piece
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
