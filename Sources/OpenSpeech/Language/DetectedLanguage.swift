import Foundation

/// The language a multilingual model heard in speech, and how sure it was. Not in Apple's API (an OpenSpeech
/// extension): Apple's transcribers are always told their locale.
public struct DetectedLanguage: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// Whisper's code for the language (ISO 639-1 where one exists: `en`, `fr`, `zh`...).
    public var language: String
    /// The model's probability for it, 0 to 1.
    public var probability: Double

    /// A detection of `language` (Whisper's code) with the model's `probability` for it.
    public init(language: String, probability: Double) {
        self.language = language
        self.probability = probability
    }

    /// The language as a locale (language only, no region).
    public var locale: Locale { Locale(identifier: language) }

    /// The language's English name where the system knows it, else its code ("French", "Japanese").
    public var name: String {
        Locale(identifier: "en").localizedString(forLanguageCode: language) ?? language
    }

    /// The English name, code and percentage, such as `French (fr, 97 %)`.
    public var description: String { "\(name) (\(language), \(Int((probability * 100).rounded())) %)" }
}
