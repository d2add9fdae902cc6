/// Word error rate (and character error rate for languages written without spaces): Levenshtein
/// alignment of transcript against reference, counting substitutions, deletions and insertions.
public enum WordErrorRate {
    /// Languages scored by characters: Chinese, Japanese, Korean, Thai, Lao, Burmese, Cantonese.
    public static let characterScoredLanguages: Set<String> = ["zh", "ja", "ko", "th", "lo", "my", "yue"]

    /// Scores a transcript against a reference in `language`: both normalized the same way, then
    /// words compared (characters, spaces ignored, for `characterScoredLanguages`).
    public static func score(reference: String, hypothesis: String, language: String) -> ErrorCounts {
        let normalizer = TextNormalizer.forLanguage(language)
        let ref = normalizer.normalize(reference), hyp = normalizer.normalize(hypothesis)
        if characterScoredLanguages.contains(language.lowercased()) {
            return characters(reference: ref, hypothesis: hyp)
        }
        return words(reference: ref, hypothesis: hyp)
    }

    /// Word-level counts of already normalized texts (split at whitespace).
    public static func words(reference: String, hypothesis: String) -> ErrorCounts {
        align(reference.split(whereSeparator: \.isWhitespace), hypothesis.split(whereSeparator: \.isWhitespace))
    }

    /// Character-level counts of already normalized texts, whitespace ignored.
    public static func characters(reference: String, hypothesis: String) -> ErrorCounts {
        align(reference.filter { !$0.isWhitespace }.map { $0 }, hypothesis.filter { !$0.isWhitespace }.map { $0 })
    }

    /// Minimum-edit alignment; among equally short alignments prefers substitutions over a
    /// deletion-insertion pair.
    public static func align<T: Equatable>(_ reference: [T], _ hypothesis: [T]) -> ErrorCounts {
        let n = reference.count, m = hypothesis.count
        // Each cell: total edits, then the counts that make it up.
        var previous = (0...m).map { ErrorCounts(insertions: $0) }
        var current = previous
        for i in 1...max(n, 1) where n > 0 {
            current[0] = ErrorCounts(deletions: i)
            for j in 1...max(m, 1) where m > 0 {
                if reference[i - 1] == hypothesis[j - 1] {
                    current[j] = previous[j - 1]
                    continue
                }
                var best = previous[j - 1]
                best.substitutions += 1
                var deletion = previous[j]
                deletion.deletions += 1
                var insertion = current[j - 1]
                insertion.insertions += 1
                if deletion.errors < best.errors { best = deletion }
                if insertion.errors < best.errors { best = insertion }
                current[j] = best
            }
            swap(&previous, &current)
        }
        var result = previous[m]
        result.referenceLength = n
        return result
    }
}
