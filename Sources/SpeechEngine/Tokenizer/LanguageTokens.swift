import Foundation

/// The tokens language detection needs, read without building a tokenizer: the start-of-transcript token and the
/// language tokens, found as `WhisperTokenizer` finds them (the same special tokens required, the same ids), from the
/// vocabulary file's special lines and `tokenizer.json`'s added tokens. The file's 50,000 BPE entries and merges
/// are not built into tables (detection encodes no text), though the whole file is still parsed as JSON, so that a
/// damaged `tokenizer.json` is the same typed error here as for transcription.
struct LanguageTokens: Sendable, Equatable {
    /// `<|startoftranscript|>`.
    let sot: Int
    /// Number of token ids, timestamps included (`WhisperTokenizer.vocabularySize`).
    let vocabularySize: Int
    /// Whether the model knows many languages.
    let isMultilingual: Bool
    /// `config.json`'s language ids in order, each with its language code (nil: not a language token of the
    /// vocabulary, as `WhisperTokenizer.languageCode(for:)` answers).
    let languages: [Language]

    struct Language: Sendable, Equatable {
        let id: Int
        let code: String?
    }

    /// Reads the tokens of the model in `modelDirectory`; `languageIDs` is `config.json`'s `lang_ids`.
    init(modelDirectory: URL, languageIDs: [Int]) throws {
        guard let vocabulary = try Self.specialLines(modelDirectory) else {
            // No vocabulary file: the spellings come from tokenizer.json itself, through the whole tokenizer.
            let tokenizer = try WhisperTokenizer(modelDirectory: modelDirectory)
            sot = tokenizer.sot
            vocabularySize = tokenizer.vocabularySize
            isMultilingual = tokenizer.isMultilingual
            languages = languageIDs.map { Language(id: $0, code: tokenizer.languageCode(for: $0)) }
            return
        }
        let added = try Self.addedTokens(modelDirectory)
        var specials: [String: Int] = [:]
        for (id, text) in vocabulary.specials { specials[text] = id }
        for (text, id) in added { specials[text] = id }
        func special(_ names: String...) throws -> Int {
            for name in names { if let id = specials[name] { return id } }
            throw WhisperTokenizerError.invalidFile("vocabulary", "no \(names[0]) token")
        }
        _ = try special("<|endoftext|>")
        sot = try special("<|startoftranscript|>")
        let transcribe = try special("<|transcribe|>"), translate = try special("<|translate|>")
        _ = try (special("<|startoflm|>"), special("<|startofprev|>"), special("<|nospeech|>", "<|nocaptions|>"))
        let noTimestamps = try special("<|notimestamps|>")
        isMultilingual = noTimestamps + 1 + 1501 >= 51865
        let count = max(vocabulary.count, noTimestamps + 1 + 1501)
        vocabularySize = count
        for (text, id) in added where !(0..<count).contains(id) {
            throw WhisperTokenizerError.invalidFile("tokenizer.json", "the token \(text) has the id \(id), past the vocabulary's \(count) tokens")
        }
        // Languages: the `<|xx|>` spellings between start-of-transcript and the tasks (WhisperTokenizer's rule).
        var codes: [Int: String] = [:]
        let spellings = Dictionary(vocabulary.specials, uniquingKeysWith: { first, _ in first })
        for id in (sot + 1)..<max(sot + 1, min(translate, transcribe)) where id < vocabulary.count {
            guard let text = spellings[id], text.count > 4 else { continue }
            let code = String(text.dropFirst(2).dropLast(2))
            if isMultilingual || code == "en" {
                codes[id] = code
            }
        }
        // A code spelled twice belongs to its last id, as in WhisperTokenizer's table.
        var last: [String: Int] = [:]
        for (id, code) in codes.sorted(by: { $0.key < $1.key }) { last[code] = id }
        languages = languageIDs.map { id in Language(id: id, code: codes[id].flatMap { last[$0] == id ? $0 : nil }) }
    }

    /// The vocabulary file's token count and its `<|…|>` lines (id, text); nil without `vocabulary.txt` or
    /// `vocabulary.json`.
    private static func specialLines(_ directory: URL) throws -> (count: Int, specials: [(Int, String)])? {
        if let data = try? Data(contentsOf: directory.appendingPathComponent("vocabulary.txt")) {
            // One token a line (empty lines are tokens too; a last newline ends the last line).
            return data.withUnsafeBytes { raw -> (count: Int, specials: [(Int, String)]) in
                let bytes = raw.bindMemory(to: UInt8.self)
                let newline = UInt8(ascii: "\n"), less = UInt8(ascii: "<"), bar = UInt8(ascii: "|"), greater = UInt8(ascii: ">")
                var specials: [(Int, String)] = []
                var id = 0, start = 0
                for end in 0...bytes.count where end == bytes.count || bytes[end] == newline {
                    if end == bytes.count && start == end { break }
                    let n = end - start
                    if n >= 4, bytes[start] == less, bytes[start + 1] == bar, bytes[end - 2] == bar, bytes[end - 1] == greater {
                        specials.append((id, String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)))
                    }
                    id += 1
                    start = end + 1
                }
                return (id, specials)
            }
        }
        guard let list = try TokenizerFiles.readVocabulary(directory) else { return nil }
        return (list.count, list.enumerated().filter { $0.element.hasPrefix("<|") && $0.element.hasSuffix("|>") }
            .map { ($0.offset, $0.element) })
    }

    /// `tokenizer.json`'s added tokens (text, id); the file is parsed whole, its vocabulary and merges only checked
    /// to be there.
    private static func addedTokens(_ directory: URL) throws -> [(String, Int)] {
        guard let data = try? Data(contentsOf: directory.appendingPathComponent("tokenizer.json")) else {
            throw WhisperTokenizerError.missingFile("tokenizer.json")
        }
        do {
            // The BPE model's vocabulary and merges must be there; they are checked as JSON, not built.
            return (try TokenizerJSONReader.read(data, buildingBPE: false).addedTokens ?? []).map { ($0.content, $0.id) }
        } catch {
            throw WhisperTokenizerError.invalidFile("tokenizer.json", "\(error)")
        }
    }
}
