import Foundation

/// Word times for a window's segments, as faster-whisper's `add_word_timestamps` computes them:
/// alignment, words, punctuation merged into neighbours, and its corrections of overlong words.
enum WordTimestamps {
    struct Timing { var word: String; var tokens: [Int]; var start: Double; var end: Double; var probability: Double }

    /// The aligned words of `textTokens` (times in seconds from the window start).
    static func timings(decoder: TextDecoder, tokenizer: WhisperTokenizer, sotSequence: [Int], language: String,
                        textTokens: [Int], numFrames: Int, alignmentHeads: [[Int]]) -> [Timing] {
        guard !textTokens.isEmpty else { return [] }
        let alignment = CrossAttentionAlignment.align(
            decoder: decoder, sotSequence: sotSequence, noTimestamps: tokenizer.noTimestamps, eot: tokenizer.eot,
            textTokens: textTokens, numFrames: numFrames, alignmentHeads: alignmentHeads)
        let (words, wordTokens) = WordSplitting.split(textTokens + [tokenizer.eot], tokenizer: tokenizer, language: language)
        guard wordTokens.count > 1 else { return [] }
        var boundaries = [0]
        for t in wordTokens.dropLast() { boundaries.append(boundaries.last! + t.count) }
        var jumpTimes: [Double] = []
        var previousRow: Int? = nil
        for step in alignment.path {
            if previousRow == nil || step.row != previousRow! { jumpTimes.append(Double(step.column) / 50) }
            previousRow = step.row
        }
        var result: [Timing] = []
        for k in 0..<(boundaries.count - 1) {
            let i = boundaries[k], j = boundaries[k + 1]
            guard i < jumpTimes.count, j < jumpTimes.count else { break }
            let probs = alignment.tokenProbabilities[min(i, alignment.tokenProbabilities.count)..<min(j, alignment.tokenProbabilities.count)]
            let probability = probs.isEmpty ? .nan : probs.reduce(0, +) / Double(probs.count)
            result.append(Timing(word: words[k], tokens: wordTokens[k], start: jumpTimes[i], end: jumpTimes[j],
                                 probability: probability))
        }
        return result
    }

    /// Fills `pieces[i].words` for one window and adjusts the pieces' times; returns the new last speech time.
    static func add(to pieces: inout [WhisperSession.Piece], decoder: TextDecoder, tokenizer: WhisperTokenizer,
                    sotSequence: [Int], language: String, numFrames: Int, seek: Int, alignmentHeads: [[Int]],
                    prepend: String, append: String, lastSpeechTimestamp: Double) -> Double {
        guard !pieces.isEmpty else { return lastSpeechTimestamp }
        let perPiece = pieces.map { $0.tokens.filter { $0 < tokenizer.eot } }
        var alignment = timings(decoder: decoder, tokenizer: tokenizer, sotSequence: sotSequence, language: language,
                                textTokens: perPiece.flatMap { $0 }, numFrames: numFrames, alignmentHeads: alignmentHeads)
        let durations = alignment.map { $0.end - $0.start }.filter { $0 != 0 }.sorted()
        var median = 0.0
        if !durations.isEmpty {
            let n = durations.count
            median = n % 2 == 1 ? durations[n / 2] : (durations[n / 2 - 1] + durations[n / 2]) / 2
        }
        median = min(0.7, median)
        let maxDuration = median * 2
        if !durations.isEmpty {
            let sentenceEnd = ".。!！?？"
            for i in 1..<max(alignment.count, 1) where alignment[i].end - alignment[i].start > maxDuration {
                // Python's `in` on strings: a substring test, true for the empty word.
                if alignment[i].word.isEmpty || sentenceEnd.contains(alignment[i].word) {
                    alignment[i].end = alignment[i].start + maxDuration
                } else if alignment[i - 1].word.isEmpty || sentenceEnd.contains(alignment[i - 1].word) {
                    alignment[i].start = alignment[i].end - maxDuration
                }
            }
        }
        mergePunctuations(&alignment, prepended: prepend, appended: append)

        var lastSpeech = lastSpeechTimestamp
        let timeOffset = Double(seek) / 100
        var wordIndex = 0
        for p in pieces.indices {
            var saved = 0
            var words: [Word] = []
            while wordIndex < alignment.count && saved < perPiece[p].count {
                let timing = alignment[wordIndex]
                if !timing.word.isEmpty {
                    words.append(Word(start: round2(timeOffset + timing.start), end: round2(timeOffset + timing.end),
                                      word: timing.word, probability: timing.probability))
                }
                saved += timing.tokens.count
                wordIndex += 1
            }
            if !words.isEmpty {
                if words[0].end - lastSpeech > median * 4
                    && (words[0].end - words[0].start > maxDuration
                        || (words.count > 1 && words[1].end - words[0].start > maxDuration * 2)) {
                    if words.count > 1 && words[1].end - words[1].start > maxDuration {
                        let boundary = max(words[1].end / 2, words[1].end - maxDuration)
                        words[0].end = boundary
                        words[1].start = boundary
                    }
                    words[0].start = max(0, words[0].end - maxDuration)
                }
                if pieces[p].start < words[0].end && pieces[p].start - 0.5 > words[0].start {
                    words[0].start = max(0, min(words[0].end - median, pieces[p].start))
                } else {
                    pieces[p].start = words[0].start
                }
                if pieces[p].end > words[words.count - 1].start && pieces[p].end + 0.5 < words[words.count - 1].end {
                    words[words.count - 1].end = max(words[words.count - 1].start + median, pieces[p].end)
                } else {
                    pieces[p].end = words[words.count - 1].end
                }
                lastSpeech = pieces[p].end
            }
            pieces[p].words = words
        }
        return lastSpeech
    }

    /// Python's `round(x, 2)`, closely enough for times in hundredths.
    static func round2(_ x: Double) -> Double { (x * 100).rounded(.toNearestOrEven) / 100 }

    /// Attaches leading punctuation to the next word and trailing punctuation to the previous one.
    static func mergePunctuations(_ alignment: inout [Timing], prepended: String, appended: String) {
        guard alignment.count >= 2 else { return }
        var i = alignment.count - 2, j = alignment.count - 1
        while i >= 0 {
            let previous = alignment[i]
            let stripped = previous.word.trimmingCharacters(in: .whitespacesAndNewlines)
            if previous.word.hasPrefix(" ") && (stripped.isEmpty || prepended.contains(stripped)) {
                alignment[j].word = previous.word + alignment[j].word
                alignment[j].tokens = previous.tokens + alignment[j].tokens
                alignment[i].word = ""
                alignment[i].tokens = []
            } else {
                j = i
            }
            i -= 1
        }
        i = 0
        j = 1
        while j < alignment.count {
            let previous = alignment[i], following = alignment[j]
            if !previous.word.hasSuffix(" ") && (following.word.isEmpty || appended.contains(following.word)) {
                alignment[i].word = previous.word + following.word
                alignment[i].tokens = previous.tokens + following.tokens
                alignment[j].word = ""
                alignment[j].tokens = []
            } else {
                i = j
            }
            j += 1
        }
    }
}
