import Foundation
import Testing
import SpeechEngine
import TestSupport

/// Special tokens, decoding and streaming of `WhisperTokenizer` on the two development models.
@Suite struct TokenizerTests {
    @Test func englishOnlySpecialTokens() async throws {
        let tokenizer = try await WhisperTokenizer(modelDirectory: TestModels.directory(for: "whisper-tiny.en"))
        #expect(!tokenizer.isMultilingual)
        #expect(tokenizer.eot == 50256)
        #expect(tokenizer.sot == 50257)
        #expect(tokenizer.translate == 50357)
        #expect(tokenizer.transcribe == 50358)
        #expect(tokenizer.startOfLM == 50359)
        #expect(tokenizer.startOfPrev == 50360)
        #expect(tokenizer.noSpeech == 50361)
        #expect(tokenizer.noTimestamps == 50362)
        #expect(tokenizer.timestampBegin == 50363)
        #expect(tokenizer.vocabularySize == 51864)
        #expect(tokenizer.languageCodes == ["en"])
        #expect(tokenizer.languageToken(for: "en") == 50258)
        #expect(tokenizer.languageToken(for: "de") == nil)
        #expect(tokenizer.sotSequence(language: "en") == [50257])
    }

    @Test func multilingualSpecialTokens() async throws {
        let tokenizer = try await WhisperTokenizer(modelDirectory: TestModels.directory(for: "whisper-base"))
        #expect(tokenizer.isMultilingual)
        #expect(tokenizer.eot == 50257)
        #expect(tokenizer.sot == 50258)
        #expect(tokenizer.translate == 50358)
        #expect(tokenizer.transcribe == 50359)
        #expect(tokenizer.startOfLM == 50360)
        #expect(tokenizer.startOfPrev == 50361)
        #expect(tokenizer.noSpeech == 50362)
        #expect(tokenizer.noTimestamps == 50363)
        #expect(tokenizer.timestampBegin == 50364)
        #expect(tokenizer.vocabularySize == 51865)
        #expect(tokenizer.languageCodes.count == 99)
        #expect(tokenizer.languageCodes.prefix(4) == ["en", "zh", "de", "es"])
        #expect(tokenizer.languageToken(for: "en") == 50259)
        #expect(tokenizer.languageToken(for: "su") == 50357)
        #expect(tokenizer.languageCode(for: 50261) == "de")
        #expect(tokenizer.languageCode(for: 50358) == nil)
        #expect(tokenizer.sotSequence(language: "de", task: .translate) == [50258, 50261, 50358])
        #expect(tokenizer.specialToken("<|ja|>") == tokenizer.languageToken(for: "ja"))
        // Agrees with config.json's lang_ids.
        let directory = try await TestModels.directory(for: "whisper-base")
        let config = try JSONSerialization.jsonObject(
            with: Data(contentsOf: directory.appendingPathComponent("config.json"))) as! [String: Any]
        let langIDs = (config["lang_ids"] as! [NSNumber]).map(\.intValue)
        #expect(tokenizer.languageCodes.map { tokenizer.languageToken(for: $0)! } == langIDs)
    }

    @Test func timestamps() async throws {
        let tokenizer = try await WhisperTokenizer(modelDirectory: TestModels.directory(for: "whisper-base"))
        let begin = tokenizer.timestampBegin
        #expect(tokenizer.isTimestamp(begin) && !tokenizer.isTimestamp(begin - 1))
        #expect(tokenizer.timestampSeconds(begin + 50) == 1.0)
        #expect(tokenizer.timestampSeconds(begin + 1500) == 30.0)
        #expect(tokenizer.tokenText(begin + 62) == "<|1.24|>")
        #expect(tokenizer.specialToken("<|30.00|>") == begin + 1500)
    }

    @Test func decodeSkipsOrRendersSpecialTokens() async throws {
        let tokenizer = try await WhisperTokenizer(modelDirectory: TestModels.directory(for: "whisper-base"))
        let hello = tokenizer.encode(" Hello world.")
        let tokens = tokenizer.sotSequence(language: "en") + [tokenizer.timestampBegin] + hello
            + [tokenizer.timestampBegin + 75, tokenizer.eot]
        #expect(tokenizer.decode(tokens) == " Hello world.")
        #expect(tokenizer.decode(tokens, specialTokens: .render)
            == "<|startoftranscript|><|en|><|transcribe|><|0.00|> Hello world.<|1.50|><|endoftext|>")
        #expect(tokenizer.decode(tokens, specialTokens: .timestampsOnly) == "<|0.00|> Hello world.<|1.50|>")
        #expect(tokenizer.decode([-1, 999_999]) == "")
    }

    @Test func characterSplitAcrossTokens() async throws {
        let tokenizer = try await WhisperTokenizer(modelDirectory: TestModels.directory(for: "whisper-base"))
        // Find a character whose bytes span several tokens.
        let text = " 我們的音樂 ♪ 𝄞 ok"
        let ids = tokenizer.encode(text)
        #expect(ids.contains { id in String(validating: tokenizer.bytes(of: id), as: UTF8.self) == nil })
        #expect(tokenizer.decode(ids) == text)
        // A lone partial character decodes to U+FFFD rather than crashing or vanishing.
        let partial = ids.first { String(validating: tokenizer.bytes(of: $0), as: UTF8.self) == nil }!
        #expect(tokenizer.decode([partial]).contains("\u{FFFD}"))
    }

    @Test func streamingDecoderHoldsBackIncompleteCharacters() async throws {
        let tokenizer = try await WhisperTokenizer(modelDirectory: TestModels.directory(for: "whisper-base"))
        let text = " Grüße aus 東京, 𝄞 and ♪♪."
        var decoder = StreamingTextDecoder(tokenizer: tokenizer)
        var pieces: [String] = []
        for id in tokenizer.encode(text) + [tokenizer.timestampBegin + 3] { pieces.append(decoder.append(id)) }
        pieces.append(decoder.flush())
        #expect(pieces.joined() == text)
        #expect(!pieces.contains { $0.contains("\u{FFFD}") })
    }

    @Test func nonSpeechTokensMatchFasterWhisper() async throws {
        // faster-whisper 1.2.1's Tokenizer.non_speech_tokens on whisper-base.
        let tokenizer = try await WhisperTokenizer(modelDirectory: TestModels.directory(for: "whisper-base"))
        let reference = try await TokenizerReference.nonSpeechTokens(modelDirectory: TestModels.directory(for: "whisper-base"))
        #expect(tokenizer.nonSpeechTokens == reference)
    }

    @Test("a prompt's usable tail: its last 223 tokens are the whole text's, and a 64 KB word without spaces is cut and encoded at once")
    func promptTail() async throws {
        let tokenizer = try await WhisperTokenizer(modelDirectory: TestModels.directory(for: "whisper-base"))
        // Real text, far longer than the tail: the corpus's transcripts one after another.
        let text = Corpus.items.map(\.transcript).joined(separator: " ")
        #expect(text.unicodeScalars.count > 2 * PromptText.maxScalars)
        let tail = PromptText.usableTail(text)
        #expect(tail.unicodeScalars.count <= PromptText.maxScalars && tail.first == " ")
        #expect(tokenizer.encode(" " + tail.trimmingCharacters(in: .whitespaces)).suffix(223)
                == tokenizer.encode(" " + text).suffix(223))
        #expect(PromptText.usableTail("short prompt") == "short prompt")

        // A word of 64 KB (an attacker's prompt): cut to the limit, and the encoder is not quadratic in it.
        let word = String(repeating: "a", count: 65_536)
        #expect(PromptText.usableTail(word).unicodeScalars.count == PromptText.maxScalars)
        let start = ContinuousClock.now
        let ids = tokenizer.encode(word)
        // Quadratic, this took a minute; linear, a few milliseconds. The bound only catches a hang.
        #expect(ContinuousClock.now - start < .seconds(5))
        #expect(tokenizer.decode(ids) == word)
    }
}
