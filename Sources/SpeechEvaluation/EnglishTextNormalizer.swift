import Foundation

/// English normalization in the spirit of Whisper's `EnglishTextNormalizer` (our own rules): lower
/// case; bracketed annotations and fillers ("uh", "um", "hmm") removed; contractions written out
/// ("don't" → "do not"); titles abbreviated ("mister" → "mr"); British spellings made American;
/// spoken numbers as digits ("fourteen fifty-five" → "1455"); accents and punctuation removed,
/// keeping decimal points and `% $ € £ ¢` attached to numbers.
public struct EnglishTextNormalizer: TextNormalizing {
    public init() {}

    public func normalize(_ text: String) -> String {
        var words: [String] = []
        for token in Self.tokens(of: Self.prepare(text)) {
            for word in Self.expand(token) where !EnglishWordForms.fillers.contains(word) {
                let word = EnglishSpellings.americanSpelling[word] ?? word
                if let last = words.last, let joined = EnglishWordForms.joinedPairs[last]?[word] {
                    words[words.count - 1] = joined
                } else {
                    words.append(word)
                }
            }
        }
        return EnglishNumberNormalizer.normalize(words)
            .filter { !EnglishNumberNormalizer.currencySymbols.contains($0) && $0 != "%" }
            .joined(separator: " ")
    }

    /// Lower case, brackets removed, apostrophes unified, accents stripped, a few fixed spellings joined.
    static func prepare(_ text: String) -> String {
        var text = BracketedText.remove(from: text.lowercased())
        for (from, to) in [("’", "'"), ("‘", "'"), ("ʼ", "'"), ("`", "'"), ("to-day", "today"), ("to-morrow", "tomorrow"),
                           ("to-night", "tonight"), ("o.k.", "ok"), ("per cent", "percent"), ("e-mail", "email")]
        where text.contains(from) {
            text = text.replacingOccurrences(of: from, with: to)
        }
        var result = String.UnicodeScalarView()
        for scalar in text.decomposedStringWithCompatibilityMapping.unicodeScalars {
            if scalar.properties.generalCategory == .nonspacingMark { continue }
            switch scalar {
            case "æ": result.append(contentsOf: "ae".unicodeScalars)
            case "œ": result.append(contentsOf: "oe".unicodeScalars)
            case "ß": result.append(contentsOf: "ss".unicodeScalars)
            case "ø": result.append("o")
            case "ł": result.append("l")
            case "đ", "ð": result.append("d")
            case "þ": result.append(contentsOf: "th".unicodeScalars)
            default: result.append(scalar)
            }
        }
        return String(result)
    }

    /// Words, numbers (with `.` between digits kept and `,` between digits dropped), and the symbols
    /// `% $ € £ ¢` as their own tokens; `&` becomes "and"; everything else separates words.
    static func tokens(of text: String) -> [String] {
        let scalars = Array(text.unicodeScalars)
        var tokens: [String] = []
        var word = String.UnicodeScalarView()
        func flush() {
            if !word.isEmpty { tokens.append(String(word)) }
            word = String.UnicodeScalarView()
        }
        func isDigit(_ index: Int) -> Bool {
            index >= 0 && index < scalars.count && scalars[index].properties.numericType == .decimal
        }
        for (index, scalar) in scalars.enumerated() {
            let category = scalar.properties.generalCategory
            switch scalar {
            case "'":
                word.append(scalar)
            case "." where isDigit(index - 1) && isDigit(index + 1):
                word.append(scalar)
            case "," where isDigit(index - 1) && isDigit(index + 1):
                continue
            case "%", "$", "€", "£", "¢":
                flush()
                tokens.append(String(scalar))
            case "&":
                flush()
                tokens.append("and")
            default:
                switch category {
                case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
                     .decimalNumber, .letterNumber, .otherNumber:
                    word.append(scalar)
                default:
                    flush()
                }
            }
        }
        flush()
        return tokens
    }

    /// One token as normalized words: contractions written out, apostrophes dropped, forms rewritten.
    static func expand(_ token: String) -> [String] {
        var token = token
        while token.hasPrefix("'") && EnglishWordForms.rewrites[token] == nil { token.removeFirst() }
        while token.hasSuffix("'") { token.removeLast() }
        if token.isEmpty { return [] }
        if let words = EnglishWordForms.contractions[token] ?? EnglishWordForms.rewrites[token] { return words }
        var words: [String] = []
        if token.contains("'") {
            for (suffix, word) in EnglishWordForms.contractionSuffixes where token.hasSuffix(suffix) {
                token.removeLast(suffix.count)
                words = [word]
                break
            }
            token.removeAll { $0 == "'" }
        }
        if token.isEmpty { return words }
        return (EnglishWordForms.rewrites[token] ?? [token]) + words
    }
}
