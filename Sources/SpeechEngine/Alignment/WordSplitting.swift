import Foundation

/// Splits tokens into words as faster-whisper does: first into the shortest runs that decode to whole
/// characters, then (for languages with spaces) merging runs that do not start a new word.
enum WordSplitting {
    /// Python's `string.punctuation`; a run whose trimmed text is a substring of it stands alone.
    static let asciiPunctuation = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"

    static func split(_ tokens: [Int], tokenizer: WhisperTokenizer, language: String)
        -> (words: [String], tokens: [[Int]]) {
        let runs = splitOnUnicode(tokens, tokenizer: tokenizer)
        if ["zh", "ja", "th", "lo", "my", "yue"].contains(language) { return runs }
        var words: [String] = [], wordTokens: [[Int]] = []
        for (text, ids) in zip(runs.words, runs.tokens) {
            let special = ids[0] >= tokenizer.eot
            let withSpace = text.hasPrefix(" ")
            let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
            let punctuation = trimmed.isEmpty || asciiPunctuation.contains(trimmed)
            if special || withSpace || punctuation || words.isEmpty {
                words.append(text)
                wordTokens.append(ids)
            } else {
                words[words.count - 1] += text
                wordTokens[wordTokens.count - 1] += ids
            }
        }
        return (words, wordTokens)
    }

    private static func splitOnUnicode(_ tokens: [Int], tokenizer: WhisperTokenizer)
        -> (words: [String], tokens: [[Int]]) {
        var words: [String] = [], wordTokens: [[Int]] = []
        var current: [Int] = [], bytes: [UInt8] = []
        for token in tokens {
            current.append(token)
            if token < tokenizer.eot { bytes += tokenizer.bytes(of: token) }
            if String(validatingUTF8Bytes: bytes) != nil {
                words.append(String(decoding: bytes, as: UTF8.self))
                wordTokens.append(current)
                current = []
                bytes = []
            }
        }
        return (words, wordTokens)
    }
}

extension String {
    /// The text of `bytes` if they are complete, valid UTF-8.
    init?(validatingUTF8Bytes bytes: [UInt8]) {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        var scalars = String.UnicodeScalarView()
        loop: while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let s): scalars.append(s)
            case .emptyInput: break loop
            case .error: return nil
            }
        }
        self = String(scalars)
    }
}
