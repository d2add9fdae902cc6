import Foundation

/// Words whose final period marks an abbreviation, not the end of a sentence: titles that stand before a name
/// ("Mr.", "Dr.", "St."), Latin abbreviations ("e.g.", "i.e.", "vs.") and initials ("John F. Kennedy"; not the words "I." and "A."). A subtitle
/// cue is never cut after one as if a sentence ended there. Words that often do end a sentence ("etc.", "No.",
/// "Jr.", "Inc.", "U.S.", "a.m.") are not listed.
enum Abbreviation {
    /// The abbreviations, lowercased, without their final period.
    static let words: Set<String> = [
        "mr", "mrs", "ms", "mx", "messrs", "dr", "prof", "st", "mt", "ft", "rev", "fr", "hon", "pres", "gov", "sen",
        "rep", "gen", "col", "capt", "cpt", "lt", "sgt", "cmdr", "adm", "supt", "mme", "mlle",
        "e.g", "i.e", "cf", "viz", "vs", "approx", "vol", "pp", "fig",
    ]

    /// Whether `word` (as a transcript writes it: trailing quotes and brackets allowed) is an abbreviation or an
    /// initial ending in a period.
    static func isAbbreviation(_ word: String) -> Bool {
        let core = word.trimmingCharacters(in: .init(charactersIn: "\"'“”‘’()[]{}«»"))
        guard core.hasSuffix("."), core.count >= 2 else { return false }
        let stem = core.dropLast()
        if stem.count == 1, let letter = stem.first { return letter.isUppercase && letter != "I" && letter != "A" }
        return words.contains(stem.lowercased())
    }
}
