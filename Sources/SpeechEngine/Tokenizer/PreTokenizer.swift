/// Splits text into the pieces byte-level BPE encodes one at a time, exactly as the GPT-2 pattern
/// `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+` of HF tokenizers'
/// `ByteLevel` pre-tokenizer does (alternatives tried in order at each position, over Unicode scalars).
enum PreTokenizer {
    private enum Kind { case letter, number, space, other }

    private static func kind(_ scalar: Unicode.Scalar) -> Kind {
        if scalar.value < 0x80 {
            switch scalar.value {
            case 0x41...0x5A, 0x61...0x7A: return .letter
            case 0x30...0x39: return .number
            case 0x09...0x0D, 0x20: return .space
            default: return .other
            }
        }
        let properties = scalar.properties
        switch properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter: return .letter
        case .decimalNumber, .letterNumber, .otherNumber: return .number
        default: return properties.isWhitespace ? .space : .other
        }
    }

    /// The pieces of `scalars`, as ranges into it.
    static func split(_ scalars: [Unicode.Scalar]) -> [Range<Int>] {
        let kinds = scalars.map(kind)
        let count = scalars.count
        var pieces: [Range<Int>] = []
        var start = 0
        while start < count {
            let end = pieceEnd(scalars, kinds, from: start)
            pieces.append(start..<end)
            start = end
        }
        return pieces
    }

    private static func pieceEnd(_ scalars: [Unicode.Scalar], _ kinds: [Kind], from start: Int) -> Int {
        let count = scalars.count
        // Contractions: 's 't 're 've 'm 'll 'd (ASCII apostrophe, lower case only).
        if scalars[start] == "'" && start + 1 < count {
            let next = scalars[start + 1]
            if next == "s" || next == "t" || next == "m" || next == "d" { return start + 2 }
            if start + 2 < count {
                let pair = (next, scalars[start + 2])
                if pair == ("r", "e") || pair == ("v", "e") || pair == ("l", "l") { return start + 3 }
            }
        }
        // An optional single space, then a run of letters, of numbers, or of other symbols.
        let body = scalars[start] == " " && start + 1 < count && kinds[start + 1] != .space ? start + 1 : start
        let bodyKind = kinds[body]
        if bodyKind != .space {
            var end = body + 1
            while end < count && kinds[end] == bodyKind { end += 1 }
            return end
        }
        // Whitespace: the whole run if it ends the text or is one character long; else all but the
        // last character, which then prefixes the next piece.
        var end = start + 1
        while end < count && kinds[end] == .space { end += 1 }
        if end < count && end - start > 1 { return end - 1 }
        return end
    }
}
