import Foundation
import SpeechAudio

/// The legacy API's view of a task's results: `SpeechTranscriber` gives final results for stretches of audio and
/// volatile ones for the stretch being heard; `SFSpeechRecognitionResult` holds the whole text so far. This keeps
/// the finals and the newest volatile result and builds the transcriptions: all final text, then the volatile
/// tail, one segment per word with its time and confidence.
struct LegacyTranscriptAssembly {
    /// A word of the text: a run with a time range, or a word of an untimed text.
    private struct Word {
        var text: String
        var start: Double
        var end: Double
        var confidence: Double
        /// The run did not start with a space: the word continues the one before.
        var continuesPrevious: Bool
    }

    /// Keep the model's punctuation (the request's `addsPunctuation`).
    let punctuation: Bool
    private(set) var finals: [SpeechTranscriber.Result] = []
    private(set) var volatile: SpeechTranscriber.Result?
    /// The words of the finals' best texts, kept as they come so a partial result costs only its new words.
    private var finalWords: [Word] = []

    init(punctuation: Bool) {
        self.punctuation = punctuation
    }

    /// Takes a result of the transcriber. A final result replaces the volatile text it settles; an empty volatile
    /// one withdraws the volatile text.
    mutating func add(_ result: SpeechTranscriber.Result) {
        if result.isFinal {
            finals.append(result)
            finalWords += words(of: result.text)
            volatile = nil
        } else {
            volatile = result.text.characters.isEmpty ? nil : result
        }
    }

    /// Whether any words were heard.
    var isEmpty: Bool { finals.isEmpty && volatile == nil }

    /// The transcriptions, most likely first: the best text, then one per further alternative the final results
    /// carry (each final result's alternative of that rank, or its best where it has fewer). Partial transcriptions
    /// end with the volatile text; confidence is reported in final results only, as Apple's.
    func transcriptions(final: Bool) -> [SFTranscription] {
        guard final else {
            return [transcription(finalWords + (volatile.map { words(of: $0.text) } ?? []), confident: false)]
        }
        let ranks = finals.map(\.alternatives.count).max() ?? 1
        return [transcription(finalWords, confident: true)] + (1..<max(ranks, 1)).map { rank in
            transcription(finals.flatMap { words(of: $0.alternatives[min(rank, $0.alternatives.count - 1)]) }, confident: true)
        }
    }

    /// The words of a text, formatted as the request asks: the runs with a time range (else the words of the text,
    /// untimed).
    private func words(of text: AttributedString) -> [Word] {
        let text = DictationTextFormatter(punctuation: punctuation, emoji: false).format(text)
        var words: [Word] = []
        for run in text.runs {
            let piece = String(text[run.range].characters)
            let range = run.audioTimeRange
            for (index, word) in piece.split(whereSeparator: \.isWhitespace).enumerated() {
                words.append(Word(text: String(word), start: range?.start.seconds ?? 0, end: range?.end.seconds ?? 0,
                                  confidence: run.transcriptionConfidence ?? 0,
                                  continuesPrevious: index == 0 && piece.first?.isWhitespace == false))
            }
        }
        return words
    }

    /// One transcription of consecutive words, one space apart, a continuing word joined to the one before.
    private func transcription(_ words: [Word], confident: Bool) -> SFTranscription {
        var merged: [Word] = []
        for word in words {
            if word.continuesPrevious, let last = merged.indices.last {
                merged[last].text += word.text
                merged[last].end = max(merged[last].end, word.end)
            } else {
                merged.append(word)
            }
        }
        var formatted = ""
        let segments = merged.map { word in
            if !formatted.isEmpty { formatted += " " }
            let location = formatted.utf16.count
            formatted += word.text
            return SFTranscriptionSegment(
                substring: word.text, substringRange: NSRange(location: location, length: word.text.utf16.count),
                timestamp: word.start, duration: max(0, word.end - word.start),
                confidence: confident ? Float(word.confidence) : 0)
        }
        return SFTranscription(formattedString: formatted, segments: segments)
    }
}
