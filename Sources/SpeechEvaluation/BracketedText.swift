/// Removes annotations in brackets, as `[MUSIC]`, `(laughs)` or `<unk>`: words nobody said.
enum BracketedText {
    static func remove(from text: String) -> String {
        var result = String.UnicodeScalarView()
        var closing: [Unicode.Scalar] = []
        for scalar in text.unicodeScalars {
            switch scalar {
            case "[": closing.append("]")
            case "(": closing.append(")")
            case "<": closing.append(">")
            case "]", ")", ">":
                if let last = closing.last, last == scalar { closing.removeLast() }
                result.append(" ")
            default:
                if closing.isEmpty { result.append(scalar) }
            }
        }
        return String(result)
    }
}
