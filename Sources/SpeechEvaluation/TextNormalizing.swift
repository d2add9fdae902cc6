/// Text normalization before scoring: both the reference and the transcript go through the same
/// normalizer, so differences of case, punctuation and spelling convention are not counted as errors.
public protocol TextNormalizing: Sendable {
    func normalize(_ text: String) -> String
}

public enum TextNormalizer {
    /// The normalizer for a language code: English rules for `en`, the basic one otherwise.
    public static func forLanguage(_ code: String) -> any TextNormalizing {
        code.lowercased().hasPrefix("en") ? EnglishTextNormalizer() : BasicTextNormalizer()
    }
}
