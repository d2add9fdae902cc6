/// The part of a prompt's text Whisper can use, found before any tokenization. The decoder sees at most the prompt's
/// last 223 tokens (half its context, less the start tokens), so a longer text only costs time: a client's 16 MB
/// prompt must not be byte-pair encoded whole. The tail kept is cut where a word begins, so its tokens are the same as
/// the whole text's last tokens for any text whose last 223 tokens fit in it (4,096 characters: every real text; a
/// token of Whisper's vocabulary spans far fewer than the 18 characters each that would take).
public enum PromptText {
    /// The most characters (Unicode scalars) of a prompt that are tokenized.
    public static let maxScalars = 4_096

    /// `text` if it is short enough; else its last `maxScalars` scalars, from the first word that starts within them
    /// (a space followed by something else), so no word is cut.
    public static func usableTail(_ text: String) -> String {
        let scalars = text.unicodeScalars
        guard scalars.count > maxScalars else { return text }
        let start = scalars.index(scalars.endIndex, offsetBy: -maxScalars)
        var index = start
        var previous: Unicode.Scalar? = nil
        while index < scalars.endIndex {
            let scalar = scalars[index]
            if scalar == " ", let previous, !previous.properties.isWhitespace,
               let after = scalars.index(index, offsetBy: 1, limitedBy: scalars.endIndex), after < scalars.endIndex,
               !scalars[after].properties.isWhitespace {
                return String(scalars[index...])
            }
            previous = scalar
            index = scalars.index(after: index)
        }
        return String(scalars[start...])
    }
}
