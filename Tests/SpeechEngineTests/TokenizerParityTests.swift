import Foundation
import Testing
import SpeechEngine
import TestSupport

/// `WhisperTokenizer.encode`/`decode` against HF tokenizers (Python) on a few hundred strings.
@Suite struct TokenizerParityTests {
    /// Hand-picked cases: leading/trailing/multiple spaces, contractions, digits, punctuation runs,
    /// special-token text, many scripts, emoji, odd whitespace.
    static let handPicked: [String] = [
        "", " ", "  ", "\n", " \n ", "Hello", " Hello", "  Hello", "Hello ", "Hello  world", "Hello\tworld",
        "hello\n\nworld", "a  b   c    d", " leading and trailing ", "   ",
        "don't", "I'm", "we're", "they've", "she'll", "he'd", "it's", "IT'S", "'tis", "rock 'n' roll",
        "O'Neill's", "’curly’ quotes", "'re'll'd", "?'s", " 's",
        "1455", " 1455", "3.14159", "1,000,000", "$12.50", "50%", "2nd", "4th of July", "q4 2021", "٣٤٥", "Ⅻ", "½",
        "Hello, world!", "What?!", "...", " -- ", "(parenthetical)", "[MUSIC]", "♪♪ la la ♪", "<< >>", "e-mail",
        "<|endoftext|>", "a<|en|>b", " <|notimestamps|> x", "<|<|en|>", "<|0.00|>", "<|startoftranscript|>",
        "Ich möchte Grüße senden.", "¿Dónde está la biblioteca?", "Ça va très bien, merci.", "São Paulo é ótimo.",
        "Привет, как дела?", "Γειά σου Κόσμε", "שלום עולם", "مرحبا بالعالم", "नमस्ते दुनिया", "สวัสดีครับ",
        "你好，世界。", "我们今天去北京。", "こんにちは、世界！", "カタカナとひらがな", "안녕하세요 세계", "한국어 문장입니다.",
        "Tiếng Việt có dấu", "Türkçe karakterler: ğüşıöç", "Ελληνικά", "ქართული", "Հայերեն",
        "🙂", "👍🏽 great", "👨‍👩‍👧 family", "e\u{301}", "caf\u{E9}", "\u{00A0}non-breaking\u{00A0}space",
        "ideographic\u{3000}space", "zero\u{200B}width", "tab\t\tend", "crlf\r\nline", "\u{2028}sep",
        " Mr. Quilter is the apostle of the middle classes.", " And so, my fellow Americans, ask not what your country can do for you.",
        "THE SQUALID QUARTER OF THE BROTHELS", "Supercalifragilisticexpialidocious", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
        "ｆｕｌｌｗｉｄｔｈ", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢", "x²+y²=z²", "C++ & C#", "user@example.com", "https://example.com/a?b=c",
        // Long pieces, where the order of merges matters most (the encoder takes them from a queue).
        String(repeating: "a", count: 3_001), String(repeating: "ab", count: 1_500), String(repeating: "lol", count: 999),
        String(repeating: "Mississippi", count: 300), String(repeating: "😀", count: 500),
        String(repeating: "supercalifragilistic", count: 150),
    ]

    /// Deterministic random strings assembled from fragments of many kinds.
    static func generated(count: Int) -> [String] {
        let fragments = [
            "the", "The", " quick", "brown", " fox", "'s", "'t", "'ll", "'", "don", "1", "23", "456", "7.8", ",", ".",
            "!", "?", "...", "-", "—", "\"", "(", ")", "[", "]", " ", " ", "  ", "\n", "\t", "é", "ß", "ñ", "Ж", "ж",
            "中", "文", "日本", "語", "한", "글", "ع", "ह", "😀", "♪", "\u{00A0}", "\u{3000}", "<|en|>", "<|", "|>",
            "Grüße", "naïve", "coöperate", "façade", "東京", "ソウル", "Москва", "١٢", "٣", "x", "Y", "z", "%", "$",
        ]
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(bound))
        }
        return (0..<count).map { _ in
            (0..<(1 + next(12))).map { _ in fragments[next(fragments.count)] }.joined()
        }
    }

    static let texts = handPicked + generated(count: 300)

    @Test(arguments: ["whisper-tiny.en", "whisper-base"])
    func encodeAndDecodeMatchHFTokenizers(model: String) async throws {
        let directory = try await TestModels.directory(for: model)
        let tokenizer = try WhisperTokenizer(modelDirectory: directory)
        let ours = Self.texts.map(tokenizer.encode)
        // Decode our encodings, plus slices of them that cut characters apart.
        var idLists = ours
        for ids in ours where ids.count > 2 { idLists.append(Array(ids.dropFirst())); idLists.append(Array(ids.dropLast())) }
        let reference = try TokenizerReference.run(modelDirectory: directory, texts: Self.texts, ids: idLists)

        var encodeMismatches = 0
        for (index, text) in Self.texts.enumerated() where ours[index] != reference.encoded[index] {
            encodeMismatches += 1
            Issue.record("encode \(text.debugDescription): ours \(ours[index]) reference \(reference.encoded[index])")
            if encodeMismatches > 10 { break }
        }
        var decodeMismatches = 0
        for (index, ids) in idLists.enumerated() where tokenizer.decode(ids) != reference.decoded[index] {
            decodeMismatches += 1
            Issue.record("decode \(ids): ours \(tokenizer.decode(ids).debugDescription) reference \(reference.decoded[index].debugDescription)")
            if decodeMismatches > 10 { break }
        }
        // Round trip: text without special-token spellings decodes back to itself.
        for (index, text) in Self.texts.enumerated() where !text.contains("<|") {
            #expect(tokenizer.decode(ours[index]) == text)
        }
    }
}
