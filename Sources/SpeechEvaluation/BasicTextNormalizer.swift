import Foundation

/// Normalization for any language: lower case, bracketed annotations removed, compatibility forms
/// folded (NFKC: full-width letters, ligatures), punctuation and symbols turned into spaces.
/// Letters keep their accents.
public struct BasicTextNormalizer: TextNormalizing {
    public init() {}

    public func normalize(_ text: String) -> String {
        let folded = BracketedText.remove(from: text.lowercased()).precomposedStringWithCompatibilityMapping
        var result = String.UnicodeScalarView()
        var pendingSpace = false
        for scalar in folded.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
                 .nonspacingMark, .spacingMark, .enclosingMark, .decimalNumber, .letterNumber, .otherNumber:
                if pendingSpace && !result.isEmpty { result.append(" ") }
                pendingSpace = false
                result.append(scalar)
            default:
                pendingSpace = true
            }
        }
        return String(result)
    }
}
