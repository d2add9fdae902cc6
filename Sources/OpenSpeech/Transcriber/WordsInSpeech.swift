import SpeechEngine

/// Word times kept out of the pauses a speech detector heard. Whisper's word times come from cross-attention
/// alignment (dynamic time warping), which can stretch a word over the pause before or after it: on JFK, "ask" was
/// timed 2.26–3.88 s across the detector's silence at 2.27–3.27 s, so a caption showed it a second early. A word whose
/// time runs `minimumPause` or more past the speech it overlaps most is cut back to that speech; a word outside any
/// speech is left as it is. Only times change, never text. A pure function of the words and the detector's regions.
enum WordsInSpeech {
    /// Less than this past the speech is the alignment's slack (regions are padded), left alone.
    static let minimumPause = 0.3

    /// `words` (timeline seconds) with each one's time limited to the speech region it overlaps most, where it ran
    /// `minimumPause` or more past it. `speech`: the detector's regions, timeline samples at `rate`, in time order.
    static func limit(_ words: [Word], to speech: [Range<Int64>], rate: Double) -> [Word] {
        guard !speech.isEmpty else { return words }
        return words.map { word in
            var best: (start: Double, end: Double)?
            for region in speech {
                let start = max(word.start, Double(region.lowerBound) / rate)
                let end = min(word.end, Double(region.upperBound) / rate)
                if end > start, end - start > (best.map { $0.end - $0.start } ?? 0) { best = (start, end) }
            }
            guard let best else { return word }
            var word = word
            if best.start - word.start >= minimumPause { word.start = best.start }
            if word.end - best.end >= minimumPause { word.end = best.end }
            return word
        }
    }
}
