/// Masks profanity, as Apple's `etiquetteReplacements` does: the first letter stays, the rest become asterisks.
enum EtiquetteFilter {
    /// Lower-case stems; a word is masked when its letters start with one of them.
    static let stems = ["fuck", "shit", "bitch", "cunt", "asshole", "bastard", "dick", "pussy", "motherfuck",
                        "bullshit", "wanker", "twat", "prick", "slut", "whore", "damn", "crap"]

    static func mask(_ text: String) -> String {
        var result = ""
        var word = ""
        func flush() {
            let lower = word.lowercased()
            if stems.contains(where: { lower.hasPrefix($0) }), let first = word.first {
                result += String(first) + String(repeating: "*", count: word.count - 1)
            } else {
                result += word
            }
            word = ""
        }
        for character in text {
            if character.isLetter { word.append(character) } else { flush(); result.append(character) }
        }
        flush()
        return result
    }
}
