import Foundation

/// Reads the parts of a Hugging Face `tokenizer.json` a byte-level BPE needs (`model.vocab`, `model.merges`,
/// `added_tokens`) in one pass over the file's bytes, checking the rest as JSON without building it. Whisper's file
/// is 2 MB (50,257 entries, 50,000 merges): `JSONDecoder` took 0.1 s over it, most of tiny.en's load, on every load;
/// this takes a quarter of that (building the entries' strings and table is most of what is left), and reading only
/// the added tokens, as language detection does, 7 ms. Strict JSON (RFC 8259): any fault throws `Failure` with a
/// sentence naming what and where.
struct TokenizerJSONReader {
    /// What the file holds of the BPE (nil: not asked for, or absent).
    struct Contents {
        var vocab: [String: Int]?
        var merges: [(String, String)]?
        var addedTokens: [(content: String, id: Int)]?
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Nesting deeper than this is refused (the parts skipped are walked recursively).
    static let maximumDepth = 512

    /// Reads `data`, which must hold `model` with `vocab` and `merges`; `buildingBPE` false: those two are checked
    /// and skipped, not built (language detection encodes no text).
    static func read(_ data: Data, buildingBPE: Bool = true) throws -> Contents {
        try data.withUnsafeBytes { raw in
            var reader = TokenizerJSONReader(bytes: raw.bindMemory(to: UInt8.self), buildingBPE: buildingBPE)
            return try reader.file()
        }
    }

    private let bytes: UnsafeBufferPointer<UInt8>
    private let buildingBPE: Bool
    private var position = 0
    /// Unescaped bytes of the string being read, reused.
    private var scratch: [UInt8] = []

    private init(bytes: UnsafeBufferPointer<UInt8>, buildingBPE: Bool) {
        self.bytes = bytes
        self.buildingBPE = buildingBPE
    }

    // MARK: The file's layout

    private mutating func file() throws -> Contents {
        var contents = Contents()
        var sawModel = false
        try object { reader, key throws in
            switch key {
            case "model":
                sawModel = true
                try reader.model(into: &contents)
            case "added_tokens":
                contents.addedTokens = try reader.addedTokens()
            default:
                try reader.skipValue(depth: 1)
            }
        }
        skipWhitespace()
        guard position == bytes.count else { throw fault("content after the top-level object") }
        guard sawModel else { throw Failure(description: "no model") }
        return contents
    }

    private mutating func model(into contents: inout Contents) throws {
        var sawVocab = false, sawMerges = false
        try object { reader, key throws in
            switch key {
            case "vocab":
                sawVocab = true
                if reader.buildingBPE { contents.vocab = try reader.vocab() } else { try reader.skipValue(depth: 2) }
            case "merges":
                sawMerges = true
                if reader.buildingBPE { contents.merges = try reader.merges() } else { try reader.skipValue(depth: 2) }
            default:
                try reader.skipValue(depth: 2)
            }
        }
        guard sawVocab else { throw Failure(description: "no vocab at model") }
        guard sawMerges else { throw Failure(description: "no merges at model") }
    }

    private mutating func vocab() throws -> [String: Int] {
        var vocab: [String: Int] = [:]
        vocab.reserveCapacity(bytes.count / 24)
        try object { reader, key throws in vocab[key] = try reader.integer("model.vocab.\(key)") }
        return vocab
    }

    /// Merge rules: older files write `"a b"`, newer ones `["a", "b"]`.
    private mutating func merges() throws -> [(String, String)] {
        var merges: [(String, String)] = []
        merges.reserveCapacity(bytes.count / 24)
        try array { reader, index throws in
            reader.skipWhitespace()
            if reader.peek() == UInt8(ascii: "\"") {
                let pair = try reader.string()
                guard let space = pair.utf8.firstIndex(of: UInt8(ascii: " ")) else {
                    throw Failure(description: "the merge \"\(pair)\" has no space, at model.merges.\(index)")
                }
                merges.append((String(pair[..<space]), String(pair[pair.utf8.index(after: space)...])))
            } else {
                var pair: [String] = []
                try reader.array { reader, _ throws in pair.append(try reader.string()) }
                guard pair.count == 2 else {
                    throw Failure(description: "a merge of \(pair.count) tokens, at model.merges.\(index)")
                }
                merges.append((pair[0], pair[1]))
            }
        }
        return merges
    }

    private mutating func addedTokens() throws -> [(content: String, id: Int)]? {
        skipWhitespace()
        if literal("null") { return nil }
        var tokens: [(content: String, id: Int)] = []
        try array { reader, index throws in
            var id: Int?, content: String?
            try reader.object { reader, key throws in
                switch key {
                case "id": id = try reader.integer("added_tokens.\(index).id")
                case "content": content = try reader.string()
                default: try reader.skipValue(depth: 3)
                }
            }
            guard let id else { throw Failure(description: "no id at added_tokens.\(index)") }
            guard let content else { throw Failure(description: "no content at added_tokens.\(index)") }
            tokens.append((content, id))
        }
        return tokens
    }

    // MARK: JSON

    private func peek() -> UInt8? { position < bytes.count ? bytes[position] : nil }

    private func fault(_ what: String) -> Failure {
        Failure(description: position < bytes.count ? "invalid JSON: \(what) at byte \(position)"
                                                    : "invalid JSON: the file ends early (\(what))")
    }

    private mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    private mutating func expect(_ byte: UInt8, _ what: String) throws {
        skipWhitespace()
        guard peek() == byte else { throw fault("expected \(what)") }
        position += 1
    }

    /// An object: `member` reads each value after its key has been read.
    private mutating func object(_ member: (inout TokenizerJSONReader, String) throws -> Void) throws {
        try expect(UInt8(ascii: "{"), "an object")
        skipWhitespace()
        if peek() == UInt8(ascii: "}") { position += 1; return }
        while true {
            skipWhitespace()
            guard peek() == UInt8(ascii: "\"") else { throw fault("expected a key") }
            let key = try string()
            try expect(UInt8(ascii: ":"), "a colon")
            try member(&self, key)
            skipWhitespace()
            switch peek() {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "}"): position += 1; return
            default: throw fault("expected a comma or the object's end")
            }
        }
    }

    /// An array: `element` reads each element (with its index).
    private mutating func array(_ element: (inout TokenizerJSONReader, Int) throws -> Void) throws {
        try expect(UInt8(ascii: "["), "an array")
        skipWhitespace()
        if peek() == UInt8(ascii: "]") { position += 1; return }
        var index = 0
        while true {
            try element(&self, index)
            index += 1
            skipWhitespace()
            switch peek() {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "]"): position += 1; return
            default: throw fault("expected a comma or the array's end")
            }
        }
    }

    /// Whether `word` (true, false, null, the `\u` of a surrogate's second half) is next; consumed if so.
    private mutating func literal(_ word: String) -> Bool {
        var index = position
        for expected in word.utf8 {
            guard index < bytes.count, bytes[index] == expected else { return false }
            index += 1
        }
        position = index
        return true
    }

    /// A string, unescaped. Invalid UTF-8 is refused, as are raw control characters and lone surrogates.
    private mutating func string() throws -> String {
        try expect(UInt8(ascii: "\""), "a string")
        let start = position
        // The common case: no escapes, a slice of the file.
        while position < bytes.count, bytes[position] != UInt8(ascii: "\""), bytes[position] != UInt8(ascii: "\\") {
            guard bytes[position] >= 0x20 else { throw fault("a control character in a string") }
            position += 1
        }
        guard position < bytes.count else { throw fault("an unterminated string") }
        if bytes[position] == UInt8(ascii: "\"") {
            position += 1
            return try text(UnsafeBufferPointer(rebasing: bytes[start..<(position - 1)]))
        }
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: bytes[start..<position])
        while true {
            guard position < bytes.count else { throw fault("an unterminated string") }
            let byte = bytes[position]
            position += 1
            switch byte {
            case UInt8(ascii: "\""):
                return try scratch.withUnsafeBufferPointer { buffer throws in try text(buffer) }
            case UInt8(ascii: "\\"):
                try escape()
            case ..<0x20:
                position -= 1
                throw fault("a control character in a string")
            default:
                scratch.append(byte)
            }
        }
    }

    /// Valid UTF-8 as a `String`.
    private func text(_ utf8: UnsafeBufferPointer<UInt8>) throws -> String {
        guard let text = String(validating: utf8, as: UTF8.self) else { throw fault("invalid UTF-8 in a string") }
        return text
    }

    /// The escape after a backslash, appended to `scratch` as UTF-8.
    private mutating func escape() throws {
        guard let byte = peek() else { throw fault("an unterminated escape") }
        position += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scratch.append(byte)
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0C)
        case UInt8(ascii: "n"): scratch.append(0x0A)
        case UInt8(ascii: "r"): scratch.append(0x0D)
        case UInt8(ascii: "t"): scratch.append(0x09)
        case UInt8(ascii: "u"):
            var value = try hexQuad()
            if (0xD800...0xDBFF).contains(value) {
                guard literal("\\u") else { throw fault("a lone surrogate") }
                let low = try hexQuad()
                guard (0xDC00...0xDFFF).contains(low) else { throw fault("a lone surrogate") }
                value = 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(value) {
                throw fault("a lone surrogate")
            }
            UTF8.encode(Unicode.Scalar(value)!) { scratch.append($0) }
        default:
            position -= 1
            throw fault("an unknown escape")
        }
    }

    private mutating func hexQuad() throws -> UInt32 {
        guard position + 4 <= bytes.count else { throw fault("a short \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[position]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw fault("a \\u escape that is not hexadecimal")
            }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
    }

    /// A JSON number that is an integer Int holds; `name` says where, for the error.
    private mutating func integer(_ name: String) throws -> Int {
        skipWhitespace()
        let start = position
        try skipNumber()
        var value = 0, index = start
        let negative = bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        while index < position {
            let digit = Int(bytes[index]) - Int(UInt8(ascii: "0"))
            guard (0...9).contains(digit) else { throw Failure(description: "\(name) is not an integer id") }
            let (times10, overflow) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(negative ? -digit : digit)
            guard !overflow && !overflow2 else { throw Failure(description: "\(name) is not an integer id") }
            value = sum
            index += 1
        }
        return value
    }

    /// Skips a number, checking its grammar.
    private mutating func skipNumber() throws {
        func digits(_ reader: inout TokenizerJSONReader) -> Int {
            let start = reader.position
            while let byte = reader.peek(), (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { reader.position += 1 }
            return reader.position - start
        }
        if peek() == UInt8(ascii: "-") { position += 1 }
        let first = peek()
        let count = digits(&self)
        guard count > 0 else { throw fault("expected a value") }
        guard first != UInt8(ascii: "0") || count == 1 else { throw fault("a number with a leading zero") }
        if peek() == UInt8(ascii: ".") {
            position += 1
            guard digits(&self) > 0 else { throw fault("a number without digits after its point") }
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            position += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { position += 1 }
            guard digits(&self) > 0 else { throw fault("a number without digits in its exponent") }
        }
    }

    /// Skips any value, checking it is JSON; `depth` is the nesting it sits at.
    private mutating func skipValue(depth: Int) throws {
        guard depth < Self.maximumDepth else { throw fault("nesting deeper than \(Self.maximumDepth)") }
        skipWhitespace()
        switch peek() {
        case UInt8(ascii: "{"): try object { reader, _ throws in try reader.skipValue(depth: depth + 1) }
        case UInt8(ascii: "["): try array { reader, _ throws in try reader.skipValue(depth: depth + 1) }
        case UInt8(ascii: "\""): try skipString()
        case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
            guard literal("true") || literal("false") || literal("null") else { throw fault("expected a value") }
        default: try skipNumber()
        }
    }

    /// Skips a string, checking its escapes and characters as `string()` does (not its UTF-8: it is not used).
    private mutating func skipString() throws {
        try expect(UInt8(ascii: "\""), "a string")
        while true {
            guard let byte = peek() else { throw fault("an unterminated string") }
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                return
            case UInt8(ascii: "\\"):
                position += 1
                scratch.removeAll(keepingCapacity: true)
                try escape()
            case ..<0x20:
                throw fault("a control character in a string")
            default:
                position += 1
            }
        }
    }
}
