import Foundation

/// The smallest `tokenizer.json` Whisper's tokenizer accepts: the 256 byte tokens of the byte-level alphabet, no
/// merges, and the special tokens as added tokens; the vocabulary target writes a `vocabulary.json` beside it.
enum MinimalTokenizer {
    static let json = json(merges: [])

    /// The same with merge rules (over printable ASCII spellings): each merged spelling a token after the bytes, the
    /// special tokens after them (Whisper's tokenizer takes every id from `<|endoftext|>` on as special).
    static func json(merges: [(String, String)]) -> String {
        var vocab: [String: Int] = [:]
        for (id, spelling) in byteSpellings.enumerated() { vocab[spelling] = id }
        for merge in merges where vocab[merge.0 + merge.1] == nil { vocab[merge.0 + merge.1] = vocab.count }
        let specials = ["<|endoftext|>", "<|startoftranscript|>", "<|en|>", "<|translate|>", "<|transcribe|>",
                        "<|startoflm|>", "<|startofprev|>", "<|nocaptions|>", "<|notimestamps|>"]
        let added = specials.enumerated().map { ["id": vocab.count + $0.offset, "content": $0.element] as [String: Any] }
        let rules = merges.map { "\($0.0) \($0.1)" }
        let root: [String: Any] = ["model": ["type": "BPE", "vocab": vocab, "merges": rules], "added_tokens": added]
        let data = try! JSONSerialization.data(withJSONObject: root, options: [.sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }

    /// GPT-2's byte-level alphabet: printable bytes stand for themselves, the others for code points from 256 up.
    static var byteSpellings: [String] {
        let printable = Set(Array(33...126) + Array(161...172) + Array(174...255))
        var next = 256
        return (0..<256).map { byte in
            if printable.contains(byte) { return String(UnicodeScalar(UInt8(byte))) }
            defer { next += 1 }
            return String(UnicodeScalar(UInt32(next))!)
        }
    }
}
