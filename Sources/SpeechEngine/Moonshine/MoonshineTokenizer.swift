import Foundation

/// Moonshine's tokenizer as `tokenizer.bin` holds it: its SentencePiece vocabulary, one entry per token id in order,
/// each a one-byte length and that many bytes (`<unk>`, `<s>`, `</s>`, the 256 byte tokens `0x00`–`0xFF`, then the
/// pieces, `▁` marking a word's start). Decoding joins the pieces' bytes, reads them as UTF-8 and turns `▁` into
/// spaces.
public struct MoonshineTokenizer: Sendable {
    /// The pieces' bytes, by token id.
    let pieces: [[UInt8]]

    public static let unknown = 0
    public static let startOfTranscript = 1
    public static let endOfTranscript = 2

    /// Vocabularies are at most this large (Moonshine's: 32,000 pieces for 32,768 logits).
    static let maximumCount = 1 << 20

    /// Reads `tokenizer.bin` at `url`. Throws `ModelError.missingFile`, else `ORTFormatError`.
    public init(url: URL) throws {
        guard FileManager.default.fileExists(atPath: url.path) else { throw ModelError.missingFile(url) }
        try self.init(data: try Data(contentsOf: url))
    }

    init(data: Data) throws {
        let bytes = [UInt8](data)
        var pieces: [[UInt8]] = []
        var position = 0
        while position < bytes.count {
            let count = Int(bytes[position])
            position += 1
            guard count <= bytes.count - position else {
                throw ORTFormatError.malformed("tokenizer.bin ends inside the piece of token \(pieces.count)")
            }
            pieces.append(Array(bytes[position..<(position + count)]))
            position += count
            guard pieces.count <= Self.maximumCount else {
                throw ORTFormatError.malformed("tokenizer.bin holds more than \(Self.maximumCount) pieces")
            }
        }
        guard pieces.count > 3 + 256 else {
            throw ORTFormatError.malformed("tokenizer.bin holds \(pieces.count) pieces, fewer than its special and byte tokens")
        }
        self.pieces = pieces
    }

    /// The first byte token (`<0x00>`) and the first piece after the 256 byte tokens.
    static let firstByte = 3, firstPiece = 3 + 256

    /// The number of pieces.
    public var count: Int { pieces.count }

    /// The text of `tokens`: special tokens and ids past the vocabulary are left out; the leading space of the
    /// first word is kept (as Whisper's text keeps it).
    public func decode(_ tokens: [Int]) -> String {
        var bytes: [UInt8] = []
        for token in tokens where token > Self.endOfTranscript && token < pieces.count {
            bytes.append(contentsOf: pieces[token])
        }
        return String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: "\u{2581}", with: " ")
    }

    /// Whether `token` begins a word: its piece starts with `▁` (a special token or one past the vocabulary does too).
    func startsWord(_ token: Int) -> Bool {
        guard token > Self.endOfTranscript && token < pieces.count else { return true }
        return pieces[token].starts(with: [0xE2, 0x96, 0x81])
    }

    /// The piece of `token` as text (nil: past the vocabulary), for tests and diagnostics.
    public func piece(_ token: Int) -> String? {
        pieces.indices.contains(token) ? String(decoding: pieces[token], as: UTF8.self) : nil
    }
}

extension MoonshineTokenizer {
    /// Text to tokens, for contextual biasing's phrases: the tokenizer's pieces indexed by their bytes, built when
    /// phrases are first encoded (a model load that never biases does not pay for it).
    public struct Encoder: Sendable {
        /// The id of each piece (past the special and byte tokens; the lowest id where a piece repeats).
        private let ids: [[UInt8]: Int]

        public init(_ tokenizer: MoonshineTokenizer) {
            var ids: [[UInt8]: Int] = [:]
            for id in (MoonshineTokenizer.firstPiece..<tokenizer.pieces.count).reversed() { ids[tokenizer.pieces[id]] = id }
            self.ids = ids
        }

        /// The tokens of `text` as SentencePiece's BPE encodes it: spaces become `▁` (no `▁` is added before the
        /// text), each character is a piece or else its UTF-8 bytes as byte tokens, then the adjacent pair whose joined
        /// piece comes first in the vocabulary (SentencePiece orders a BPE vocabulary by merge) is merged, again and
        /// again. The model's own tokens are given back this way for every clip of the corpus (`MoonshineParityTests`).
        public func encode(_ text: String) -> [Int] {
            var symbols: [(bytes: [UInt8], id: Int, merges: Bool)] = []
            for scalar in text.replacingOccurrences(of: " ", with: "\u{2581}").unicodeScalars {
                let bytes = Array(String(scalar).utf8)
                if let id = ids[bytes] {
                    symbols.append((bytes, id, true))
                } else {
                    symbols += bytes.map { ([$0], MoonshineTokenizer.firstByte + Int($0), false) }
                }
            }
            while symbols.count > 1 {
                var best: (index: Int, id: Int)?
                for index in 0..<(symbols.count - 1) where symbols[index].merges && symbols[index + 1].merges {
                    if let id = ids[symbols[index].bytes + symbols[index + 1].bytes], id < best?.id ?? .max {
                        best = (index, id)
                    }
                }
                guard let best else { break }
                symbols[best.index] = (symbols[best.index].bytes + symbols[best.index + 1].bytes, best.id, true)
                symbols.remove(at: best.index + 1)
            }
            return symbols.map(\.id)
        }
    }
}
