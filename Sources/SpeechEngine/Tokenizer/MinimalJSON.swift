/// A small JSON reader for `tokenizer.json` (2 MB, 100k strings): parses UTF-8 bytes straight into
/// Swift values, several times faster than `JSONSerialization` on Linux, which bridges every value.
enum MinimalJSON: Sendable {
    case string(String)
    case number(Double)
    case bool(Bool)
    case null
    case array([MinimalJSON])
    /// Members in file order.
    case object([(String, MinimalJSON)])

    struct SyntaxError: Error, CustomStringConvertible {
        let offset: Int
        var description: String { "invalid JSON at byte \(offset)" }
    }

    static func parse(_ bytes: [UInt8]) throws -> MinimalJSON {
        try bytes.withUnsafeBufferPointer { buffer in
            var parser = Parser(bytes: buffer)
            let value = try parser.value()
            parser.skipSpace()
            guard parser.position == buffer.count else { throw SyntaxError(offset: parser.position) }
            return value
        }
    }

    subscript(key: String) -> MinimalJSON? {
        guard case let .object(members) = self else { return nil }
        return members.first { $0.0 == key }?.1
    }

    var string: String? { if case let .string(value) = self { value } else { nil } }
    var int: Int? { if case let .number(value) = self, let exact = Int(exactly: value) { exact } else { nil } }
    var array: [MinimalJSON]? { if case let .array(value) = self { value } else { nil } }
    var members: [(String, MinimalJSON)]? { if case let .object(value) = self { value } else { nil } }

    private struct Parser {
        let bytes: UnsafeBufferPointer<UInt8>
        var position = 0

        mutating func skipSpace() {
            while position < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[position]) { position += 1 }
        }

        mutating func expect(_ byte: UInt8) throws {
            skipSpace()
            guard position < bytes.count, bytes[position] == byte else { throw SyntaxError(offset: position) }
            position += 1
        }

        mutating func value() throws -> MinimalJSON {
            skipSpace()
            guard position < bytes.count else { throw SyntaxError(offset: position) }
            switch bytes[position] {
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "{"):
                position += 1
                var members: [(String, MinimalJSON)] = []
                skipSpace()
                if position < bytes.count, bytes[position] == UInt8(ascii: "}") { position += 1; return .object(members) }
                while true {
                    skipSpace()
                    let key = try string()
                    try expect(UInt8(ascii: ":"))
                    members.append((key, try value()))
                    skipSpace()
                    guard position < bytes.count else { throw SyntaxError(offset: position) }
                    position += 1
                    if bytes[position - 1] == UInt8(ascii: "}") { return .object(members) }
                    guard bytes[position - 1] == UInt8(ascii: ",") else { throw SyntaxError(offset: position - 1) }
                }
            case UInt8(ascii: "["):
                position += 1
                var elements: [MinimalJSON] = []
                skipSpace()
                if position < bytes.count, bytes[position] == UInt8(ascii: "]") { position += 1; return .array(elements) }
                while true {
                    elements.append(try value())
                    skipSpace()
                    guard position < bytes.count else { throw SyntaxError(offset: position) }
                    position += 1
                    if bytes[position - 1] == UInt8(ascii: "]") { return .array(elements) }
                    guard bytes[position - 1] == UInt8(ascii: ",") else { throw SyntaxError(offset: position - 1) }
                }
            case UInt8(ascii: "t"): try literal("true"); return .bool(true)
            case UInt8(ascii: "f"): try literal("false"); return .bool(false)
            case UInt8(ascii: "n"): try literal("null"); return .null
            default: return .number(try number())
            }
        }

        mutating func literal(_ word: StaticString) throws {
            let count = word.utf8CodeUnitCount
            guard position + count <= bytes.count else { throw SyntaxError(offset: position) }
            for index in 0..<count where bytes[position + index] != word.utf8Start[index] { throw SyntaxError(offset: position) }
            position += count
        }

        mutating func number() throws -> Double {
            let start = position
            while position < bytes.count, "+-0123456789.eE".utf8.contains(bytes[position]) { position += 1 }
            guard let value = Double(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)) else {
                throw SyntaxError(offset: start)
            }
            return value
        }

        mutating func string() throws -> String {
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { throw SyntaxError(offset: position) }
            position += 1
            let start = position
            // Fast path: no escapes.
            while position < bytes.count, bytes[position] != UInt8(ascii: "\""), bytes[position] != UInt8(ascii: "\\") { position += 1 }
            guard position < bytes.count else { throw SyntaxError(offset: start) }
            if bytes[position] == UInt8(ascii: "\"") {
                position += 1
                return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<(position - 1)]), as: UTF8.self)
            }
            var utf8 = Array(bytes[start..<position])
            while position < bytes.count {
                let byte = bytes[position]
                position += 1
                if byte == UInt8(ascii: "\"") { return String(decoding: utf8, as: UTF8.self) }
                guard byte == UInt8(ascii: "\\") else { utf8.append(byte); continue }
                guard position < bytes.count else { break }
                let escape = bytes[position]
                position += 1
                switch escape {
                case UInt8(ascii: "n"): utf8.append(0x0A)
                case UInt8(ascii: "t"): utf8.append(0x09)
                case UInt8(ascii: "r"): utf8.append(0x0D)
                case UInt8(ascii: "b"): utf8.append(0x08)
                case UInt8(ascii: "f"): utf8.append(0x0C)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800..<0xDC00).contains(scalar), position + 1 < bytes.count,
                       bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u") {
                        position += 2
                        let low = try hex4()
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low &- 0xDC00)
                    }
                    utf8.append(contentsOf: UTF8.encode(Unicode.Scalar(scalar) ?? "\u{FFFD}")!)
                default: utf8.append(escape)  // \" \\ \/
                }
            }
            throw SyntaxError(offset: start)
        }

        mutating func hex4() throws -> UInt32 {
            guard position + 4 <= bytes.count else { throw SyntaxError(offset: position) }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let byte = bytes[position]
                position += 1
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: throw SyntaxError(offset: position - 1)
                }
                value = value << 4 | UInt32(digit)
            }
            return value
        }
    }
}
