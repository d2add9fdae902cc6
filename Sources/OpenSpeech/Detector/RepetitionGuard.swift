import SpeechEngine

/// Cuts repetition loops from final text: Whisper models, on noise or after losing their place, can repeat a
/// word or phrase over and over ("thank you. thank you. thank you. ..."). A phrase of up to eight words said
/// three times in a row (a single word four times) keeps only its first occurrence.
enum RepetitionGuard {
    static let longestPhrase = 8

    /// `text` and its `words` (if any) without repetition loops; unchanged when there are none.
    static func cut(words: [Word]?, text: String) -> (words: [Word]?, text: String) {
        if let words, !words.isEmpty {
            let kept = keptIndices(words.map(\.word))
            guard kept.count < words.count else { return (words, text) }
            let trimmed = kept.map { words[$0] }
            return (trimmed, trimmed.map(\.word).joined())
        }
        let tokens = tokenize(text)
        let kept = keptIndices(tokens)
        guard kept.count < tokens.count else { return (words, text) }
        return (words, kept.map { tokens[$0] }.joined())
    }

    /// Whether `text` holds a repetition loop that `cut` would shorten, or its last `window` words hold a run of four
    /// words three times, in a row or not: a decoder that lost its place and copies itself ("to pay for the money to
    /// pay for the money to pay the money"), which text arriving in pieces shows before it loops exactly.
    static func hasLoop(_ text: String, window: Int = 60) -> Bool {
        let tokens = tokenize(text)
        if keptIndices(tokens).count < tokens.count { return true }
        let keys = tokens.suffix(window).map(key).filter { !$0.isEmpty }
        guard keys.count >= 12 else { return false }
        var counts: [ArraySlice<String>: Int] = [:]
        for start in 0...(keys.count - 4) {
            let seen = counts[keys[start..<(start + 4)], default: 0] + 1
            if seen >= 3 { return true }
            counts[keys[start..<(start + 4)]] = seen
        }
        return false
    }

    /// A word as loops are compared: lowercase letters and digits only.
    private static func key(_ token: String) -> String {
        token.lowercased().filter { $0.isLetter || $0.isNumber }
    }

    /// Indices of the tokens to keep: all but the second and later occurrences of each loop.
    static func keptIndices(_ tokens: [String]) -> [Int] {
        let keys = tokens.map(key)
        var keep = [Bool](repeating: true, count: keys.count)
        var index = 0
        while index < keys.count {
            var advanced = false
            for period in 1...longestPhrase where index + 2 * period <= keys.count {
                let phrase = keys[index..<(index + period)]
                guard !phrase.allSatisfy(\.isEmpty) else { continue }
                var repeats = 1
                while index + (repeats + 1) * period <= keys.count,
                      keys[(index + repeats * period)..<(index + (repeats + 1) * period)].elementsEqual(phrase) {
                    repeats += 1
                }
                if repeats >= (period == 1 ? 4 : 3) {
                    for cut in (index + period)..<(index + repeats * period) { keep[cut] = false }
                    index += repeats * period
                    advanced = true
                    break
                }
            }
            if !advanced { index += 1 }
        }
        return keep.indices.filter { keep[$0] }
    }

    /// Splits text into words that keep their leading spaces, so joining them gives the text back.
    static func tokenize(_ text: String) -> [String] {
        var tokens: [String] = []
        var current = ""
        for character in text {
            if character == " ", !current.isEmpty, current.last != " " {
                tokens.append(current)
                current = ""
            }
            current.append(character)
        }
        if !current.isEmpty { tokens.append(current) }
        return tokens
    }
}
