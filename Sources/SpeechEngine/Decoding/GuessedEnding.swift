/// Words a decoder wrote after it had all but ended: at a word's start the end token was likely (the model took the
/// speech for over) and every word it chose from there on was unsure. Moonshine does this where a clip stops in the
/// middle of a sentence (a recording cut short, a detector's clip ending inside a phrase): it goes on with what the
/// language makes likely, not with what it heard ("…of about 1455, was published in 1965."), or adds a closing word
/// ("…the right sizing. So."). Rare words it did hear are unsure too, but the end token is unlikely before them
/// (ONNX Runtime's log-probabilities on the corpus's 75 English clips up to 30 s: three endings guessed, all three
/// wrong words; the unsure endings that were heard, "Damehi Potum.", "…Bussarre.", had the end at −5.9 and below).
/// A pure function of the decoding's log-probabilities (greedy: the chosen token's and the end token's at each step).
struct GuessedEnding: Sendable, Equatable {
    /// The end token's log-probability, at the first token of the guessed words, above which the model took the
    /// speech for over.
    let endAbove: Double
    /// The mean log-probability of the guessed words' tokens (to the last) below which they were guessed.
    let meanBelow: Double

    /// Moonshine's: the end at e^−5 (0.7 %) or likelier, the words after it at a mean below −0.7.
    static let moonshine = GuessedEnding(endAbove: -5, meanBelow: -0.7)

    /// The number of tokens to keep: all but the guessed words at the end (the earliest word start, past the first
    /// token, where the end was likely and the tokens from there to the last have a mean below `meanBelow`).
    /// `logProbabilities[i]` is token `i`'s, `endLogProbabilities[i]` the end token's at the step that chose it;
    /// `startsWord(i)` says whether token `i` begins a word.
    func kept(logProbabilities: [Double], endLogProbabilities: [Double], startsWord: (Int) -> Bool) -> Int {
        let count = min(logProbabilities.count, endLogProbabilities.count)
        guard count > 1 else { return logProbabilities.count }
        // The mean of every suffix, from the last token back.
        var suffixSums = [Double](repeating: 0, count: count + 1)
        for index in stride(from: count - 1, through: 0, by: -1) {
            suffixSums[index] = suffixSums[index + 1] + logProbabilities[index]
        }
        for index in 1..<count where endLogProbabilities[index] > endAbove && startsWord(index)
            && suffixSums[index] / Double(count - index) < meanBelow {
            return index
        }
        return logProbabilities.count
    }
}
