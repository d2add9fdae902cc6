import Foundation

/// Rewrites spoken English numbers as digits over a list of words: "two hundred and fifty seven
/// million" → "257000000", "fourteen fifty five" → "1455" (years read in pairs), "nineteen oh five"
/// → "1905", "three point one four" → "3.14", "twenty first" → "21st", "five percent" → "5%",
/// "ten dollars" or "$ 10" → "$10". Digits already written pass through (and take scales: "2.5 million").
enum EnglishNumberNormalizer {
    private static let units = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
    private static let teens = ["ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen",
                                "seventeen", "eighteen", "nineteen"]
    private static let tens = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
    private static let scales: [String: Int] = ["thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000,
                                                "trillion": 1_000_000_000_000]
    private static let ordinalUnits = ["zeroth", "first", "second", "third", "fourth", "fifth", "sixth", "seventh",
                                       "eighth", "ninth"]
    private static let ordinalTeens = ["tenth", "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth",
                                       "sixteenth", "seventeenth", "eighteenth", "nineteenth"]
    private static let ordinalTens = ["twentieth", "thirtieth", "fortieth", "fiftieth", "sixtieth", "seventieth",
                                      "eightieth", "ninetieth"]
    private static let currencyWords: [String: String] = [
        "dollar": "$", "dollars": "$", "euro": "€", "euros": "€", "pound": "£", "pounds": "£", "cent": "¢", "cents": "¢",
    ]
    static let currencySymbols: Set<String> = ["$", "€", "£", "¢"]

    private enum Kind { case unit, teen, tens, hundred, scale, digits }

    private struct Word {
        let kind: Kind
        let value: Int
        let ordinal: Bool
    }

    private static let words: [String: Word] = {
        var table: [String: Word] = [:]
        for (value, word) in units.enumerated() { table[word] = Word(kind: .unit, value: value, ordinal: false) }
        for (value, word) in teens.enumerated() { table[word] = Word(kind: .teen, value: 10 + value, ordinal: false) }
        for (index, word) in tens.enumerated() { table[word] = Word(kind: .tens, value: 20 + 10 * index, ordinal: false) }
        table["hundred"] = Word(kind: .hundred, value: 100, ordinal: false)
        for (word, value) in scales { table[word] = Word(kind: .scale, value: value, ordinal: false) }
        for (value, word) in ordinalUnits.enumerated() { table[word] = Word(kind: .unit, value: value, ordinal: true) }
        for (value, word) in ordinalTeens.enumerated() { table[word] = Word(kind: .teen, value: 10 + value, ordinal: true) }
        for (index, word) in ordinalTens.enumerated() { table[word] = Word(kind: .tens, value: 20 + 10 * index, ordinal: true) }
        table["hundredth"] = Word(kind: .hundred, value: 100, ordinal: true)
        for (word, value) in scales { table[word + "th"] = Word(kind: .scale, value: value, ordinal: true) }
        return table
    }()

    /// One number read from consecutive words.
    private struct Group {
        var total: Decimal = 0
        var current: Decimal = 0
        var fraction = ""
        var last: Kind = .unit
        var lastScale = Int.max
        var ordinal = false
        /// Spoken as a plain 10...99 ("fourteen", "fifty five"), so it may be half of a year.
        var twoDigitSpoken = false
        var end = 0
        var value: Decimal { total + current }
    }

    private static func lookup(_ token: String) -> Word? {
        if let word = words[token] { return word }
        if let first = token.first, first.isASCII, first.isNumber, Decimal(string: token) != nil,
           token.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }) {
            return Word(kind: .digits, value: 0, ordinal: false)
        }
        return nil
    }

    /// Whether `word` can extend a group whose last word was of kind `last`.
    private static func continues(_ group: Group, with word: Word) -> Bool {
        switch word.kind {
        case .unit: return group.last == .tens || group.last == .hundred || group.last == .scale
        case .teen, .tens: return group.last == .hundred || group.last == .scale
        case .hundred: return group.current > 0 && group.current < 100 && group.last != .hundred && group.last != .scale
        case .scale: return group.value > 0 && word.value < group.lastScale && group.last != .scale
        case .digits: return false
        }
    }

    /// Reads the number starting at `start`, if any.
    private static func parseGroup(_ tokens: [String], at start: Int) -> Group? {
        var index = start
        var group = Group()
        // "a hundred", "a thousand"...
        if tokens[index] == "a", index + 1 < tokens.count, let next = words[tokens[index + 1]],
           next.kind == .hundred || next.kind == .scale {
            group.current = 1
            group.last = .unit
            index += 1
        } else {
            guard let first = lookup(tokens[index]) else { return nil }
            if first.kind == .hundred || first.kind == .scale { return nil }
            apply(first, token: tokens[index], to: &group)
            group.twoDigitSpoken = (first.kind == .teen || first.kind == .tens) && !first.ordinal
            index += 1
            if first.ordinal { group.end = index; return group }
        }
        while index < tokens.count {
            var token = tokens[index]
            var skip = 0
            // "and" joins only inside a number: "one hundred and five".
            if token == "and", group.last == .hundred || group.last == .scale, index + 1 < tokens.count,
               let next = words[tokens[index + 1]], next.kind == .unit || next.kind == .teen || next.kind == .tens {
                token = tokens[index + 1]
                skip = 1
            }
            guard let word = words[token], continues(group, with: word) else { break }
            if word.kind == .unit && group.last == .tens { /* still two digits */ } else { group.twoDigitSpoken = false }
            apply(word, token: token, to: &group)
            index += 1 + skip
            if word.ordinal { break }
        }
        group.end = index
        return group
    }

    private static func apply(_ word: Word, token: String, to group: inout Group) {
        switch word.kind {
        case .unit, .teen, .tens: group.current += Decimal(word.value)
        case .digits:
            let parts = token.split(separator: ".", maxSplits: 1)
            group.current = Decimal(string: String(parts[0])) ?? 0
            if parts.count == 2 { group.fraction = String(parts[1]) }
        case .hundred: group.current *= 100
        case .scale:
            var chunk = group.current
            if !group.fraction.isEmpty {
                chunk += Decimal(string: "0." + group.fraction) ?? 0
                group.fraction = ""
            }
            group.total += chunk * Decimal(word.value)
            group.current = 0
            group.lastScale = word.value
        }
        group.last = word.kind
        if word.ordinal { group.ordinal = true }
    }

    private static func ordinalSuffix(_ value: Decimal) -> String {
        let number = NSDecimalNumber(decimal: value).intValue
        if (11...13).contains(number % 100) { return "th" }
        switch number % 10 {
        case 1: return "st"
        case 2: return "nd"
        case 3: return "rd"
        default: return "th"
        }
    }

    private static func text(_ value: Decimal) -> String { NSDecimalNumber(decimal: value).stringValue }

    /// The words with spoken numbers turned into digits.
    static func normalize(_ tokens: [String]) -> [String] {
        var output: [String] = []
        var index = 0
        while index < tokens.count {
            var currency = ""
            var start = index
            if currencySymbols.contains(tokens[index]), index + 1 < tokens.count {
                currency = tokens[index]
                start = index + 1
            }
            guard var group = parseGroup(tokens, at: start) else {
                output.append(tokens[index])
                index += 1
                continue
            }
            var end = group.end
            // Years read in pairs: "fourteen fifty five", "nineteen oh five".
            if group.twoDigitSpoken, end < tokens.count {
                if let second = parseGroup(tokens, at: end), second.twoDigitSpoken || (second.ordinal && second.value >= 10 && second.value < 100 && second.total == 0 && second.last != .hundred) {
                    group.current = group.value * 100 + second.value
                    group.total = 0
                    group.ordinal = second.ordinal
                    end = second.end
                } else if tokens[end] == "oh", end + 1 < tokens.count, let unit = words[tokens[end + 1]], unit.kind == .unit {
                    group.current = group.value * 100 + Decimal(unit.value)
                    group.total = 0
                    group.ordinal = unit.ordinal
                    end += 2
                }
            }
            var number = text(group.value)
            if group.ordinal {
                number += ordinalSuffix(group.value)
            } else {
                // Decimals: "three point one four".
                if group.fraction.isEmpty, end + 1 < tokens.count, tokens[end] == "point" {
                    var digits = ""
                    var cursor = end + 1
                    while cursor < tokens.count, let unit = words[tokens[cursor]], unit.kind == .unit, !unit.ordinal {
                        digits += String(unit.value)
                        cursor += 1
                    }
                    if !digits.isEmpty {
                        group.fraction = digits
                        end = cursor
                        // "two point five million".
                        if group.total == 0, end < tokens.count, let scale = scales[tokens[end]] {
                            let value = (group.current + (Decimal(string: "0." + digits) ?? 0)) * Decimal(scale)
                            number = text(value)
                            group.fraction = ""
                            end += 1
                        }
                    }
                }
                if !group.fraction.isEmpty { number += "." + group.fraction }
                if end < tokens.count, tokens[end] == "%" || tokens[end] == "percent" {
                    number += "%"
                    end += 1
                } else if end + 1 < tokens.count, tokens[end] == "per", tokens[end + 1] == "cent" {
                    number += "%"
                    end += 2
                } else if currency.isEmpty, end < tokens.count, let symbol = currencyWords[tokens[end]] {
                    currency = symbol
                    end += 1
                }
            }
            output.append(currency + number)
            index = end
        }
        return output
    }
}
