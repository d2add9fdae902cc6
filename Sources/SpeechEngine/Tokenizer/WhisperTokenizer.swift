import Foundation

/// Whisper's byte-level BPE tokenizer, read from a CTranslate2 model directory: ids to text
/// (`vocabulary.txt`/`.json`), text to ids (`tokenizer.json`'s merges, as HF tokenizers encodes),
/// and the special tokens the decoder needs.
public struct WhisperTokenizer: Sendable {
    /// Task tokens for the start-of-transcript sequence.
    public enum Task: String, Sendable, CaseIterable {
        case transcribe, translate
    }

    // MARK: Special tokens

    /// `<|endoftext|>`; every id from here on is special.
    public let eot: Int
    /// `<|startoftranscript|>`.
    public let sot: Int
    /// `<|transcribe|>`.
    public let transcribe: Int
    /// `<|translate|>`.
    public let translate: Int
    /// `<|startoflm|>`.
    public let startOfLM: Int
    /// `<|startofprev|>`: precedes the previous text given as a prompt.
    public let startOfPrev: Int
    /// `<|nospeech|>` (large-v3) or `<|nocaptions|>`: its probability is the no-speech probability.
    public let noSpeech: Int
    /// `<|notimestamps|>`.
    public let noTimestamps: Int
    /// `<|0.00|>`; timestamp `i` is `timestampBegin + i`, i × 0.02 s.
    public var timestampBegin: Int { noTimestamps + 1 }
    /// Whether the model knows many languages (else it is an English-only `.en` model).
    public let isMultilingual: Bool
    /// Language codes the model accepts, in token order (`["en"]` for an English-only model).
    public let languageCodes: [String]
    /// Tokens faster-whisper suppresses for `suppress_tokens=[-1]`: symbols of speaker tags and
    /// non-speech annotations (`♪`, `[`, `(`...), plus a leading " -" and " '".
    public private(set) var nonSpeechTokens: [Int] = []

    /// Number of token ids, timestamps included.
    public var vocabularySize: Int { offsets.count - 1 }

    // MARK: Tables

    /// Bytes of every token, concatenated; token `i` is `bytes[offsets[i]..<offsets[i+1]]`.
    /// Special tokens hold their UTF-8 text.
    private let bytes: [UInt8]
    private let offsets: [Int32]
    private let languageTokens: [String: Int]
    private let specialTokens: [String: Int]
    private let merges: BytePairMerges
    private let addedTokens: AddedTokenMatcher

    /// Loads the tokenizer of the model in `modelDirectory`.
    public init(modelDirectory: URL) throws {
        let files = try TokenizerFiles(modelDirectory: modelDirectory)
        let vocabulary = files.vocabulary

        var specials: [String: Int] = [:]
        for (id, text) in vocabulary.enumerated() where text.hasPrefix("<|") && text.hasSuffix("|>") {
            specials[text] = id
        }
        for (text, id) in files.addedTokens { specials[text] = id }
        func special(_ names: String...) throws -> Int {
            for name in names { if let id = specials[name] { return id } }
            throw WhisperTokenizerError.invalidFile("vocabulary", "no \(names[0]) token")
        }
        eot = try special("<|endoftext|>")
        sot = try special("<|startoftranscript|>")
        transcribe = try special("<|transcribe|>")
        translate = try special("<|translate|>")
        startOfLM = try special("<|startoflm|>")
        startOfPrev = try special("<|startofprev|>")
        noSpeech = try special("<|nospeech|>", "<|nocaptions|>")
        noTimestamps = try special("<|notimestamps|>")
        // Whisper's own rule: multilingual vocabularies have at least 51865 ids with timestamps.
        isMultilingual = noTimestamps + 1 + 1501 >= 51865

        // Languages are the `<|xx|>` tokens between start-of-transcript and the tasks. (config.json's
        // lang_ids is not used: converted English-only models carry the multilingual ids there.)
        var languageTokens: [String: Int] = [:]
        var codes: [String] = []
        // (A damaged vocabulary may order the tokens otherwise: then it has no languages, rather than a range that traps.)
        for id in (sot + 1)..<max(sot + 1, min(translate, transcribe)) where id < vocabulary.count {
            let text = vocabulary[id]
            guard text.hasPrefix("<|"), text.hasSuffix("|>"), text.count > 4 else { continue }
            let code = String(text.dropFirst(2).dropLast(2))
            if isMultilingual || code == "en" {
                languageTokens[code] = id
                codes.append(code)
            }
        }
        self.languageTokens = languageTokens
        languageCodes = codes
        specialTokens = specials

        // Byte table: vocabulary spellings back to bytes; special tokens as text; timestamps as text.
        let count = max(vocabulary.count, noTimestamps + 1 + 1501)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count * 7)
        var offsets: [Int32] = [0]
        offsets.reserveCapacity(count + 1)
        for id in 0..<count {
            if id >= noTimestamps + 1 {
                bytes.append(contentsOf: Self.timestampText(id - noTimestamps - 1).utf8)
            } else if id < vocabulary.count {
                let text = vocabulary[id]
                if id >= eot {
                    bytes.append(contentsOf: text.utf8)
                } else {
                    bytes.append(contentsOf: ByteLevelAlphabet.bytes(of: text) ?? Array(text.utf8))
                }
            }
            offsets.append(Int32(bytes.count))
        }
        self.bytes = bytes
        self.offsets = offsets
        // Every id the encoder can produce must have a spelling (and a row in the model, which the model checks).
        for (text, id) in files.encoderVocabulary.map({ ($0.key, $0.value) }) + files.addedTokens where id >= count {
            throw WhisperTokenizerError.invalidFile("tokenizer.json", "the token \(text) has the id \(id), past the vocabulary's \(count) tokens")
        }

        merges = try BytePairMerges(vocabulary: files.encoderVocabulary, rules: files.merges)
        addedTokens = AddedTokenMatcher(files.addedTokens)
        nonSpeechTokens = computeNonSpeechTokens()
    }

    private static func timestampText(_ index: Int) -> String {
        let hundredths = index * 2
        let fraction = hundredths % 100
        return "<|\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)|>"
    }

    // MARK: Lookup

    /// The language token for an ISO 639-1 code (`"en"`, `"de"`...), or nil if the model lacks it.
    public func languageToken(for code: String) -> Int? { languageTokens[code] }

    /// The language code of a language token, or nil if `token` is not one.
    public func languageCode(for token: Int) -> String? {
        guard token > sot, token < min(translate, transcribe) else { return nil }
        let code = tokenText(token).dropFirst(2).dropLast(2)
        return languageTokens[String(code)] == token ? String(code) : nil
    }

    /// The id of a special token written as text (`"<|en|>"`, `"<|1.00|>"`), or nil.
    public func specialToken(_ text: String) -> Int? { specialTokens[text] }

    /// Whether `token` is special (end of text, start of transcript, a language, a task, a timestamp...).
    @inline(__always)
    public func isSpecial(_ token: Int) -> Bool { token >= eot }

    /// Whether `token` is a timestamp.
    @inline(__always)
    public func isTimestamp(_ token: Int) -> Bool { token >= timestampBegin }

    /// The time in seconds a timestamp token stands for (0.02 s steps), or nil for other tokens.
    public func timestampSeconds(_ token: Int) -> Double? {
        isTimestamp(token) ? Double(token - timestampBegin) * 0.02 : nil
    }

    /// The bytes a token stands for (UTF-8 text for special tokens); empty for unknown ids.
    @inline(__always)
    public func bytes(of token: Int) -> ArraySlice<UInt8> {
        guard token >= 0, token < offsets.count - 1 else { return [] }
        return bytes[Int(offsets[token])..<Int(offsets[token + 1])]
    }

    /// A token's text (an incomplete UTF-8 sequence becomes U+FFFD).
    public func tokenText(_ token: Int) -> String { String(decoding: bytes(of: token), as: UTF8.self) }

    /// The prefix every decoding starts with: start of transcript, then for multilingual models the
    /// language (when given) and the task.
    public func sotSequence(language: String?, task: Task = .transcribe) -> [Int] {
        var sequence = [sot]
        guard isMultilingual else { return sequence }
        if let language, let token = languageTokens[language] { sequence.append(token) }
        sequence.append(task == .transcribe ? transcribe : translate)
        return sequence
    }

    // MARK: Decoding

    /// The text of `tokens`. Characters split across tokens are joined; bytes that form no character
    /// become U+FFFD. Special tokens are left out unless `specialTokens` asks otherwise.
    public func decode(_ tokens: [Int], specialTokens: SpecialTokenRendering = .skip) -> String {
        var text = ""
        var pending: [UInt8] = []
        pending.reserveCapacity(tokens.count * 4)
        for token in tokens where token >= 0 && token < offsets.count - 1 {
            if token >= eot {
                switch specialTokens {
                case .skip: continue
                case .timestampsOnly where token < timestampBegin: continue
                default: break
                }
                text += String(decoding: pending, as: UTF8.self)
                pending.removeAll(keepingCapacity: true)
                text += tokenText(token)
            } else {
                pending.append(contentsOf: bytes[Int(offsets[token])..<Int(offsets[token + 1])])
            }
        }
        text += String(decoding: pending, as: UTF8.self)
        return text
    }

    // MARK: Encoding

    /// The ids of `text` as HF tokenizers encodes it without added special tokens (what
    /// faster-whisper does for prompts and prefixes): special-token text such as `<|en|>` becomes
    /// that token; the rest is pre-tokenized with GPT-2's pattern and byte-pair encoded.
    public func encode(_ text: String) -> [Int] {
        var ids: [Int] = []
        let scalars = Array(text.unicodeScalars)
        var segmentStart = 0
        for (range, id) in addedTokens.matches(in: scalars) {
            encodeOrdinary(scalars[segmentStart..<range.lowerBound], into: &ids)
            ids.append(id)
            segmentStart = range.upperBound
        }
        encodeOrdinary(scalars[segmentStart...], into: &ids)
        return ids
    }

    private func encodeOrdinary(_ scalars: ArraySlice<Unicode.Scalar>, into ids: inout [Int]) {
        guard !scalars.isEmpty else { return }
        let segment = Array(scalars)
        var utf8: [UInt8] = []
        for piece in PreTokenizer.split(segment) {
            utf8.removeAll(keepingCapacity: true)
            for scalar in segment[piece] { utf8.append(contentsOf: UTF8.encode(scalar)!) }
            merges.encode(utf8, into: &ids)
        }
    }

    // MARK: Suppression

    private func computeNonSpeechTokens() -> [Int] {
        let symbols = "\"#()*+/:;<=>@[\\]^_`{|}~「」『』".map(String.init)
            + "<< >> <<< >>> -- --- -( -[ (' (\" (( )) ((( ))) [[ ]] {{ }} ♪♪ ♪♪♪".split(separator: " ").map(String.init)
        // U+2640...U+267F symbols share their first UTF-8 bytes: suppressing the first token is safe.
        let miscellaneous = "♩♪♫♬♭♮♯".map(String.init)
        var result: Set<Int> = []
        if let dash = encode(" -").first { result.insert(dash) }
        if let quote = encode(" '").first { result.insert(quote) }
        for symbol in symbols + miscellaneous {
            let isMiscellaneous = miscellaneous.contains(symbol)
            for tokens in [encode(symbol), encode(" " + symbol)] where tokens.count == 1 || isMiscellaneous {
                if let first = tokens.first { result.insert(first) }
            }
        }
        return result.sorted()
    }
}
