import Foundation
import SpeechAudio

/// The legacy API's view of a task's results: `SpeechTranscriber` gives final results for stretches of audio and
/// volatile ones for the stretch being heard; `SFSpeechRecognitionResult` holds the whole text so far. This keeps
/// the finals and the newest volatile result and builds the transcriptions: all final text, then the volatile
/// tail, one segment per word with its time and confidence.
struct LegacyTranscriptAssembly {
    /// Keep the model's punctuation (the request's `addsPunctuation`).
    let punctuation: Bool
    private(set) var finals: [SpeechTranscriber.Result] = []
    private(set) var volatile: SpeechTranscriber.Result?

    init(punctuation: Bool) {
        self.punctuation = punctuation
    }

    /// Takes a result of the transcriber. A final result replaces the volatile text it settles; an empty volatile
    /// one withdraws the volatile text.
    mutating func add(_ result: SpeechTranscriber.Result) {
        if result.isFinal {
            finals.append(result)
            volatile = nil
        } else {
            volatile = result.text.characters.isEmpty ? nil : result
        }
    }

    /// Whether any words were heard.
    var isEmpty: Bool { finals.isEmpty && volatile == nil }

    /// The transcriptions, most likely first: the best text, then one per further alternative the final results
    /// carry (each final result's alternative of that rank, or its best where it has fewer).
    func transcriptions(final: Bool) -> [SFTranscription] {
        let parts = finals + (final ? [] : volatile.map { [$0] } ?? [])
        let ranks = final ? parts.map(\.alternatives.count).max() ?? 1 : 1
        return (0..<max(ranks, 1)).map { rank in
            transcription(parts.map { $0.alternatives[min(rank, $0.alternatives.count - 1)] }, confident: final)
        }
    }

    /// One transcription of consecutive texts: words are the runs with a time range (else the words of the text,
    /// untimed), one space apart; a run that does not start with a space continues the word before it. Confidence
    /// is reported in final results only, as Apple's.
    private func transcription(_ texts: [AttributedString], confident: Bool) -> SFTranscription {
        struct Word { var text: String; var start: Double; var end: Double; var confidence: Double }
        let formatter = DictationTextFormatter(punctuation: punctuation, emoji: false)
        var words: [Word] = []
        for text in texts.map(formatter.format) {
            for run in text.runs {
                let piece = String(text[run.range].characters)
                let range = run.audioTimeRange
                let start = range?.start.seconds ?? 0, end = range?.end.seconds ?? 0
                for (index, word) in piece.split(whereSeparator: \.isWhitespace).enumerated() {
                    if index == 0, piece.first?.isWhitespace == false, let last = words.indices.last {
                        words[last].text += word
                        words[last].end = max(words[last].end, end)
                    } else {
                        words.append(Word(text: String(word), start: start, end: end,
                                          confidence: run.transcriptionConfidence ?? 0))
                    }
                }
            }
        }
        var formatted = ""
        let segments = words.map { word in
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
