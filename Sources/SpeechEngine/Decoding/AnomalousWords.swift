/// Words the audio cannot have held: a segment whose words last almost no time, are improbable, or stretch over
/// seconds, as Whisper writes them when it invents text after the speech (a "Thank you." in the half second of silence
/// that ends a recording, copied from the prompt's tone). The score follows openai-whisper's word anomaly measure
/// (`hallucination_silence_threshold`): per word, 1 for a probability under 0.15, up to 2 for a duration under
/// 0.133 s, and the seconds over 2 for a longer one.
public enum AnomalousWords {
    /// Whether the segment with these words (with their times and probabilities) is anomalous: its first eight
    /// words (punctuation alone left out) score 3 or more, or as much as one per word.
    public static func isAnomalous(_ words: [Word]) -> Bool {
        let scored = words.filter { $0.word.contains(where: { $0.isLetter || $0.isNumber }) }.prefix(8)
        guard !scored.isEmpty else { return false }
        let score = scored.reduce(0.0) { total, word in
            let duration = word.end - word.start
            var score = word.probability < 0.15 ? 1.0 : 0
            if duration < 0.133 { score += (0.133 - duration) * 15 }
            if duration > 2 { score += duration - 2 }
            return total + score
        }
        return score >= 3 || score + 0.01 >= Double(scored.count)
    }
}
