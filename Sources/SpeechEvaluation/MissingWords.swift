/// Where a transcript lost words: the longest run of consecutive reference words that a minimum-edit alignment
/// deletes. A transcript that drops a stretch of audio shows as a long run; scattered errors do not.
public enum MissingWords {
    /// The longest run of consecutive reference words deleted, after normalizing both texts for `language`.
    public static func longestRun(reference: String, hypothesis: String, language: String) -> Int {
        let normalizer = TextNormalizer.forLanguage(language)
        let ref = normalizer.normalize(reference).split(whereSeparator: \.isWhitespace)
        let hyp = normalizer.normalize(hypothesis).split(whereSeparator: \.isWhitespace)
        return longestRun(ref, hyp)
    }

    /// The longest run of consecutive elements of `reference` deleted by a minimum-edit alignment to `hypothesis`.
    public static func longestRun<T: Equatable>(_ reference: [T], _ hypothesis: [T]) -> Int {
        let n = reference.count, m = hypothesis.count
        guard n > 0 else { return 0 }
        // Edit distances of every prefix pair, then a backtrace that prefers matches and substitutions.
        var cost = [[Int]](repeating: [Int](repeating: 0, count: m + 1), count: n + 1)
        for i in 0...n { cost[i][0] = i }
        for j in 0...m { cost[0][j] = j }
        for i in 1...n where m > 0 {
            for j in 1...m {
                let diagonal = cost[i - 1][j - 1] + (reference[i - 1] == hypothesis[j - 1] ? 0 : 1)
                cost[i][j] = min(diagonal, cost[i - 1][j] + 1, cost[i][j - 1] + 1)
            }
        }
        var i = n, j = m, run = 0, longest = 0
        while i > 0 {
            if j > 0, cost[i][j] == cost[i - 1][j - 1] + (reference[i - 1] == hypothesis[j - 1] ? 0 : 1) {
                i -= 1; j -= 1; run = 0
            } else if cost[i][j] == cost[i - 1][j] + 1 {
                i -= 1; run += 1; longest = max(longest, run)
            } else {
                j -= 1
            }
        }
        return longest
    }
}
