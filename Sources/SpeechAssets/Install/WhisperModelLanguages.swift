import Foundation

/// The languages a CTranslate2 Whisper model directory transcribes, read from the model itself: English only when
/// its decoder's vocabulary (the rows of `decoder/embeddings/weight` in `model.bin`) is Whisper's English-only one,
/// 51,864 tokens; otherwise the languages of its language tokens (`lang_ids` in `config.json`, in Whisper's order:
/// 99 for a vocabulary of 51,865, 100 with Cantonese for large-v3's 51,866). Only `model.bin`'s header is read:
/// the variables before the embeddings are skipped, not loaded.
enum WhisperModelLanguages {
    /// The vocabulary size of Whisper's English-only models.
    static let englishOnlyVocabularySize = 51_864
    /// The token id of `<|en|>`, the first language token of a multilingual vocabulary.
    static let firstLanguageToken = 50_259

    /// Whisper's languages in the order of their tokens: the built-in multilingual model's 99, then Cantonese
    /// (large-v3).
    static var whisperLanguages: [String] {
        (ModelCatalog.builtIn.model("whisper-base")?.languages ?? []) + ["yue"]
    }

    /// The language codes of the model in `directory`. Throws `ModelAssetError.invalidModelDirectory` when
    /// `model.bin` is not a CTranslate2 Whisper model whose vocabulary can be read.
    static func languages(in directory: URL) throws -> [String] {
        let path = directory.standardizedFileURL.path
        let vocabulary: Int
        do {
            vocabulary = try decoderVocabularySize(of: directory.appendingPathComponent("model.bin"))
        } catch let problem as HeaderProblem {
            throw ModelAssetError.invalidModelDirectory(
                path: path, reason: "model.bin \(problem.reason), so its languages are unknown; give them with --languages")
        }
        guard vocabulary > englishOnlyVocabularySize else { return ["en"] }
        let all = whisperLanguages
        let count = vocabulary > englishOnlyVocabularySize + 1 ? all.count : all.count - 1
        let config = try? JSONSerialization.jsonObject(with: RegularFile.contents(of: directory.appendingPathComponent("config.json")))
        if let ids = (config as? [String: Any])?["lang_ids"] as? [Int], !ids.isEmpty,
           ids.allSatisfy({ (0..<count).contains($0 - firstLanguageToken) }) {
            return ids.map { all[$0 - firstLanguageToken] }
        }
        return Array(all.prefix(count))
    }

    /// Why a `model.bin` header could not be read, as the end of a sentence starting with "model.bin".
    struct HeaderProblem: Error {
        let reason: String
    }

    /// The rows of the decoder's token embeddings in the `model.bin` at `url`. The layout (little-endian): `u32`
    /// format version, spec name, `u32` spec revision, `u32` variable count, then per variable: name, `u8` rank,
    /// `u32` × rank dims, `u8` data type, `u32` byte count, bytes. A name is a `u16` length (with its NUL) and bytes.
    static func decoderVocabularySize(of url: URL) throws -> Int {
        let file = try RegularFile.openForReading(url)
        defer { try? file.close() }
        var reader = HeaderReader(file: file)
        guard (1...6).contains(try reader.u32()) else { throw HeaderProblem(reason: "is of an unknown format version") }
        guard try reader.name() == "WhisperSpec" else { throw HeaderProblem(reason: "holds no Whisper model") }
        _ = try reader.u32()
        let count = try reader.u32()
        for _ in 0..<count {
            let name = try reader.name()
            let rank = Int(try reader.u8())
            let shape = try (0..<rank).map { _ in Int(try reader.u32()) }
            _ = try reader.u8()
            let bytes = try reader.u32()
            if name == "decoder/embeddings/weight" {
                guard let rows = shape.first, rank == 2 else { throw HeaderProblem(reason: "has decoder embeddings of shape \(shape)") }
                return rows
            }
            try reader.skip(UInt64(bytes))
        }
        throw HeaderProblem(reason: "has no decoder embeddings")
    }

    /// Reads a header's fields in order; the end of the file before a field is a `HeaderProblem`.
    private struct HeaderReader {
        let file: FileHandle
        var offset: UInt64 = 0

        mutating func bytes(_ count: Int) throws -> Data {
            let data = try file.read(upToCount: count) ?? Data()
            guard data.count == count else { throw HeaderProblem(reason: "ends inside its header") }
            offset += UInt64(count)
            return data
        }

        mutating func u8() throws -> UInt8 { try bytes(1)[0] }

        mutating func u32() throws -> UInt32 {
            try bytes(4).reversed().reduce(0) { $0 << 8 | UInt32($1) }
        }

        mutating func name() throws -> String {
            let length = try bytes(2).reversed().reduce(0) { $0 << 8 | Int($1) }
            return String(decoding: try bytes(length).prefix { $0 != 0 }, as: UTF8.self)
        }

        mutating func skip(_ count: UInt64) throws {
            offset += count
            try file.seek(toOffset: offset)
        }
    }
}
