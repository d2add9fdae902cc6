import Foundation
import SpeechAudio

/// Dictation's text options applied to a result's text, keeping each word's attributes: without punctuation,
/// the model's punctuation marks go (a mark between digits, as in "3.5" or "1,000", stays); with emoji, spoken
/// emoji names become emoji (the replaced words' time ranges merge into the emoji's).
struct DictationTextFormatter: Sendable {
    var punctuation: Bool
    var emoji: Bool

    /// Marks removed without `.punctuation`.
    static let marks: Set<Character> = [".", ",", "!", "?", ";", ":", "…", "\"", "“", "”", "¿", "¡", "—", "–"]

    /// Spoken names, as lower-case words, and their emoji; longer names are matched first.
    static let emojiNames: [(words: [String], emoji: String)] = [
        ("smiley face emoji", "🙂"), ("smiley face", "🙂"), ("smiley emoji", "🙂"), ("smiling face", "😊"),
        ("winky face", "😉"), ("wink emoji", "😉"), ("frowny face", "🙁"), ("sad face", "🙁"),
        ("laughing emoji", "😂"), ("crying laughing emoji", "😂"), ("crying emoji", "😢"),
        ("heart emoji", "❤️"), ("red heart emoji", "❤️"), ("broken heart emoji", "💔"),
        ("thumbs up emoji", "👍"), ("thumbs up", "👍"), ("thumbs down emoji", "👎"), ("thumbs down", "👎"),
        ("fire emoji", "🔥"), ("party popper emoji", "🎉"), ("party emoji", "🎉"), ("clapping emoji", "👏"),
        ("ok hand emoji", "👌"), ("rocket emoji", "🚀"), ("star emoji", "⭐"), ("sun emoji", "☀️"),
        ("poop emoji", "💩"), ("thinking face", "🤔"), ("thinking emoji", "🤔"), ("pizza emoji", "🍕"),
    ].map { (words: $0.0.split(separator: " ").map(String.init), emoji: $0.1) }
        .sorted { $0.words.count > $1.words.count }

    func format(_ text: AttributedString) -> AttributedString {
        var text = text
        if emoji { replaceEmojiNames(&text) }
        if !punctuation { removePunctuation(&text) }
        return text
    }

    // MARK: Punctuation

    private func removePunctuation(_ text: inout AttributedString) {
        let characters = Array(text.characters)
        var remove: [Int] = []
        for (index, character) in characters.enumerated() {
            let before = index > 0 ? characters[index - 1] : nil
            let after = index + 1 < characters.count ? characters[index + 1] : nil
            if Self.marks.contains(character) {
                let betweenDigits = [".", ",", ":"].contains(character)
                    && (before?.isNumber ?? false) && (after?.isNumber ?? false)
                if !betweenDigits { remove.append(index) }
            } else if character == "-", before == " " || before == nil, after == " " || after == nil {
                remove.append(index) // a dash standing alone, not a hyphen
            }
        }
        for index in remove.reversed() {
            let position = text.characters.index(text.startIndex, offsetBy: index)
            text.removeSubrange(position..<text.characters.index(after: position))
        }
        collapseSpaces(&text)
    }

    /// Removes a space following another space, and a trailing space.
    private func collapseSpaces(_ text: inout AttributedString) {
        let characters = Array(text.characters)
        var remove: [Int] = []
        for index in characters.indices where characters[index] == " " {
            if index > 0 && characters[index - 1] == " " || index == characters.count - 1 && index > 0 {
                remove.append(index)
            }
        }
        for index in remove.reversed() {
            let position = text.characters.index(text.startIndex, offsetBy: index)
            text.removeSubrange(position..<text.characters.index(after: position))
        }
    }

    // MARK: Emoji

    /// The words of `characters`: letter runs (apostrophes inside), as lower-case strings and offsets.
    private static func words(_ characters: [Character]) -> [(word: String, range: Range<Int>)] {
        var words: [(String, Range<Int>)] = []
        var start: Int?
        for index in 0...characters.count {
            let isWordCharacter = index < characters.count
                && (characters[index].isLetter || characters[index] == "'" && start != nil)
            if isWordCharacter { if start == nil { start = index } } else if let begin = start {
                words.append((String(characters[begin..<index]).lowercased(), begin..<index))
                start = nil
            }
        }
        return words
    }

    private func replaceEmojiNames(_ text: inout AttributedString) {
        let characters = Array(text.characters)
        let words = Self.words(characters)
        var replacements: [(range: Range<Int>, emoji: String)] = []
        var index = 0
        while index < words.count {
            let match = Self.emojiNames.first { name in
                index + name.words.count <= words.count
                    && zip(name.words, words[index..<(index + name.words.count)]).allSatisfy { $0 == $1.word }
                    && words[index..<(index + name.words.count)].indices.dropFirst().allSatisfy { position in
                        // Only spaces or hyphens between the name's words.
                        characters[words[position - 1].range.upperBound..<words[position].range.lowerBound]
                            .allSatisfy { $0 == " " || $0 == "-" }
                    }
            }
            if let match {
                let range = words[index].range.lowerBound..<words[index + match.words.count - 1].range.upperBound
                replacements.append((range, match.emoji))
                index += match.words.count
            } else {
                index += 1
            }
        }
        for replacement in replacements.reversed() {
            let lower = text.characters.index(text.startIndex, offsetBy: replacement.range.lowerBound)
            let upper = text.characters.index(text.startIndex, offsetBy: replacement.range.upperBound)
            var attributes = text[lower..<upper].runs.first?.attributes ?? AttributeContainer()
            let times = text[lower..<upper].runs.compactMap(\.audioTimeRange)
            if let first = times.first, let last = times.last {
                attributes.audioTimeRange = CMTimeRange(start: first.start, end: max(last.end, first.start))
            }
            text.replaceSubrange(lower..<upper, with: AttributedString(replacement.emoji, attributes: attributes))
        }
    }
}
