/// Turns tokens into text one at a time, for streaming: bytes of a character split across tokens
/// are held back until the character is complete. Special tokens are skipped.
public struct StreamingTextDecoder: Sendable {
    public let tokenizer: WhisperTokenizer
    private var pending: [UInt8] = []

    public init(tokenizer: WhisperTokenizer) {
        self.tokenizer = tokenizer
    }

    /// Adds one token; returns the text it completes (possibly empty).
    public mutating func append(_ token: Int) -> String {
        guard !tokenizer.isSpecial(token) else { return "" }
        pending.append(contentsOf: tokenizer.bytes(of: token))
        let complete = pending.count - Self.incompleteTailLength(pending)
        guard complete > 0 else { return "" }
        let text = String(decoding: pending[..<complete], as: UTF8.self)
        pending.removeFirst(complete)
        return text
    }

    /// Returns whatever is held back (as U+FFFD if it is no character) and starts afresh.
    public mutating func flush() -> String {
        defer { pending.removeAll() }
        return String(decoding: pending, as: UTF8.self)
    }

    /// Length of a UTF-8 sequence at the end of `bytes` that is started but not finished.
    static func incompleteTailLength(_ bytes: [UInt8]) -> Int {
        var length = 0
        for byte in bytes.reversed().prefix(4) {
            length += 1
            if byte & 0xC0 == 0x80 { continue }  // continuation byte: look further back
            let needed = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1
            return needed > length ? length : 0
        }
        return 0
    }
}
