import SpeechEngine

extension Transcript {
    /// The transcript with each segment and each timed word given the speaker of `turns` who speaks most during it
    /// (a word is never split; one in a pause gets the nearest turn's speaker within a second, else its neighbours').
    /// A segment whose words change speaker is split where they do, each part with its words' text, so every segment
    /// has one speaker (the decoder's statistics stay with the first part). OpenSpeech extension (speakers come from
    /// `SpeakerDiarizer`).
    public func attributingSpeakers(_ turns: [SpeakerTurn]) -> Transcript {
        var labels: [String] = []
        var numbers: [String: Int] = [:]
        let numbered = turns.map { turn in
            let number = numbers[turn.speaker] ?? {
                labels.append(turn.speaker)
                numbers[turn.speaker] = labels.count - 1
                return labels.count - 1
            }()
            return SpeechEngine.SpeakerTurn(start: turn.start, end: turn.end, speaker: number)
        }
        func label(_ number: Int?) -> String? { number.map { labels[$0] } }
        let separator = SubtitleCues(language: language).wordSeparator
        var copy = self
        copy.segments = []
        let segmentSpeakers = SpeakerAttribution.speakers(for: segments.map { (start: $0.start, end: $0.end) }, turns: numbered)
        for (index, segment) in segments.enumerated() {
            var segment = segment
            segment.speaker = label(segmentSpeakers[index])
            let wordSpeakers = SpeakerAttribution.speakers(for: segment.words.map { (start: $0.start, end: $0.end) },
                                                           turns: numbered)
            for word in segment.words.indices {
                segment.words[word].speaker = label(wordSpeakers[word]) ?? (word > 0 ? segment.words[word - 1].speaker : nil)
                    ?? segment.speaker
            }
            // Runs of words of one speaker; one run: the segment as it is.
            var runs: [Range<Int>] = []
            for word in segment.words.indices {
                if let last = runs.last, segment.words[last.lowerBound].speaker == segment.words[word].speaker {
                    runs[runs.count - 1] = last.lowerBound..<(word + 1)
                } else {
                    runs.append(word..<(word + 1))
                }
            }
            guard runs.count > 1 else {
                copy.segments.append(segment)
                continue
            }
            for (part, run) in runs.enumerated() {
                var piece = segment
                piece.words = Array(segment.words[run])
                piece.start = part == 0 ? segment.start : piece.words[0].start
                piece.end = part == runs.count - 1 ? segment.end : piece.words[piece.words.count - 1].end
                piece.text = piece.words.map(\.word).joined(separator: separator)
                piece.speaker = piece.words[0].speaker
                if part > 0 { piece.statistics = nil }
                copy.segments.append(piece)
            }
        }
        return copy
    }

    /// The plain text with speakers: a line with the speaker's name at each change, then what they said; nil
    /// without speakers.
    var speakerText: String? {
        guard segments.contains(where: { $0.speaker != nil }) else { return nil }
        var paragraphs: [(speaker: String?, text: [String])] = []
        for segment in segments where !segment.text.isEmpty {
            if let last = paragraphs.last, last.speaker == segment.speaker {
                paragraphs[paragraphs.count - 1].text.append(segment.text)
            } else {
                paragraphs.append((segment.speaker, [segment.text]))
            }
        }
        return paragraphs.map { ($0.speaker ?? "Unknown speaker") + "\n" + $0.text.joined(separator: " ") + "\n" }
            .joined(separator: "\n")
    }
}
