import Foundation

extension SFCustomLanguageModelData {
    /// The X-SAMPA symbols custom pronunciations may use for `locale`, as Apple's `supportedPhonemes(locale:)`.
    ///
    /// Ours lists English's phonemes (vowels, diphthongs, r-coloured vowels and consonants of General American and
    /// Received Pronunciation) for every English locale, and an empty list for other languages. Pronunciations are
    /// stored but not used for recognition.
    public static func supportedPhonemes(locale: Locale) -> [String] {
        guard locale.language.languageCode?.identifier == "en" else { return [] }
        return englishPhonemes
    }

    /// English in X-SAMPA: monophthongs, diphthongs, r-coloured vowels, then consonants.
    static let englishPhonemes: [String] = [
        "i", "I", "e", "E", "{", "a", "A", "Q", "O", "o", "U", "u", "V", "@", "3",
        "eI", "aI", "OI", "oU", "@U", "aU", "I@", "E@", "U@",
        "@`", "3`", "r=",
        "p", "b", "t", "d", "k", "g", "4", "?",
        "f", "v", "T", "D", "s", "z", "S", "Z", "h",
        "tS", "dZ",
        "m", "n", "N", "m=", "n=",
        "l", "l=", "5", "r", "r\\", "w", "j", "W",
    ]
}
