/// Finds the request bodies that would crash MultipartKit's parser before it sees them. Its `MultipartParser`
/// (4.7.1, the version available) looks each byte of a part's header name up in a 128-entry table and traps on a
/// byte of 128 or more (found by fuzzing: `bench/Fuzz/Findings/multipartkit-header-name-non-ascii.bin`), so a
/// crafted upload could stop the server. The guard follows the parser's framing byte by byte (preamble, boundary,
/// header lines, body) and says no at the first byte that would reach that lookup; where the parser would throw a
/// syntax error instead, the guard stops looking (the parser refuses the body there). Nothing is copied.
struct MultipartHeaderGuard: Sendable {
    private enum State: Sendable, Equatable {
        case preamble(matched: Int)
        /// After a boundary: the CR (`expectingLineFeed` false) or LF that ends its line.
        case boundaryLineEnd(expectingLineFeed: Bool)
        case headerName(empty: Bool)
        case headerValue
        case headerValueEnd
        case headersEnd
        case body
        case boundary(matched: Int)
        /// The parser has ended (epilogue) or will throw: nothing further reaches it.
        case done
    }

    private static let cr: UInt8 = 13, lf: UInt8 = 10, colon: UInt8 = 58, hyphen: UInt8 = 45

    /// CRLF, two hyphens and the boundary, as the parser matches it.
    private let delimiter: [UInt8]
    private var state = State.preamble(matched: 0)

    init(boundary: String) {
        delimiter = Array("\r\n--\(boundary)".utf8)
    }

    /// Takes the next bytes of the body; false at the first byte that would trap the parser (the body must then be
    /// refused), true otherwise.
    mutating func accepts(_ bytes: some Sequence<UInt8>) -> Bool {
        for byte in bytes {
            switch state {
            case .done:
                return true
            case .preamble(let matched):
                let next = matched == 0 && byte == delimiter[2] ? 3
                    : byte == delimiter[matched] ? matched + 1
                    : matched > 0 && byte == delimiter[0] ? 1 : 0
                state = next == delimiter.count ? .boundaryLineEnd(expectingLineFeed: false) : .preamble(matched: next)
            case .boundaryLineEnd(let expectingLineFeed):
                if !expectingLineFeed && byte == Self.cr {
                    state = .boundaryLineEnd(expectingLineFeed: true)
                } else if expectingLineFeed && byte == Self.lf {
                    state = .headerName(empty: true)
                } else {
                    state = .done
                }
            case .headerName(let empty):
                if byte >= 128 { return false }
                if byte == Self.colon && !empty {
                    state = .headerValue
                } else if byte == Self.cr && empty {
                    state = .headersEnd
                } else {
                    state = Self.isTokenCharacter(byte) ? .headerName(empty: false) : .done
                }
            case .headerValue:
                if byte == Self.cr { state = .headerValueEnd }
            case .headerValueEnd:
                state = byte == Self.lf ? .headerName(empty: true) : .done
            case .headersEnd:
                state = byte == Self.lf ? .body : .done
            case .body:
                if byte == Self.cr { state = .boundary(matched: 1) }
            case .boundary(let matched):
                if matched == delimiter.count {
                    state = byte == Self.cr ? .boundaryLineEnd(expectingLineFeed: true) : .done
                } else if byte == delimiter[matched] {
                    state = .boundary(matched: matched + 1)
                } else {
                    state = byte == Self.cr ? .boundary(matched: 1) : .body
                }
            }
        }
        return true
    }

    /// A character of an HTTP header name (RFC 9110's `tchar`): the only ones the parser takes there.
    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}
