import Foundation
import Testing
@testable import OpenSpeech
import SpeechEngine
import SpeechEvaluation
import TestSupport

/// Chinese in the locale's script: Whisper writes mainland speech in Traditional characters as often as not; results
/// for zh-CN are Simplified, for zh-TW and zh-HK Traditional, as Apple's transcribers write them.
@Suite("Chinese script", .serialized)
struct ChineseScriptTests {
    @Test("the script each locale asks for: Simplified for zh-CN, zh-Hans, zh-SG and plain zh; Traditional for zh-TW, zh-Hant and zh-HK; nothing for other languages")
    func targets() {
        func target(_ language: String, _ locale: String) -> ChineseScript? {
            ChineseScript.target(language: language, locale: Locale(identifier: locale))
        }
        #expect(target("zh", "zh-CN") == .simplified)
        #expect(target("zh", "zh_Hans_CN") == .simplified)
        #expect(target("zh", "zh-SG") == .simplified)
        #expect(target("zh", "zh") == .simplified)
        #expect(target("zh", "zh-TW") == .traditionalTaiwan)
        #expect(target("zh", "zh-Hant") == .traditionalTaiwan)
        #expect(target("zh", "zh-Hant-TW") == .traditionalTaiwan)
        #expect(target("zh", "zh-HK") == .traditionalHongKong)
        #expect(target("zh", "zh-Hant-HK") == .traditionalHongKong)
        #expect(target("yue", "yue") == .traditionalHongKong)
        #expect(target("yue", "yue-CN") == .simplified)
        // Chinese detected in a session whose locale is another language's: Simplified.
        #expect(target("zh", "en-US") == .simplified)
        #expect(target("ja", "ja-JP") == nil)
        #expect(target("en", "zh-CN") == nil)
    }

    @Test("conversion both ways, Latin text untouched, and words keep their boundaries and times")
    func conversion() {
        #expect(ChineseScript.simplified.convert("廣州市房地產中介協會分析") == "广州市房地产中介协会分析")
        #expect(ChineseScript.traditionalTaiwan.convert("广州市房地产中介协会分析") == "廣州市房地產中介協會分析")
        #expect(ChineseScript.traditionalHongKong.convert("发展") == "發展")
        #expect(ChineseScript.simplified.convert(" And so, my fellow Americans.") == " And so, my fellow Americans.")
        let words = [Word(start: 0, end: 0.5, word: " 廣州", probability: 0.9),
                     Word(start: 0.5, end: 0.7, word: "市", probability: 0.8),
                     Word(start: 0.7, end: 1.4, word: "房地產", probability: 0.7)]
        let converted = ChineseScript.simplified.convert(words)
        #expect(converted.map(\.word) == [" 广州", "市", "房地产"])
        #expect(converted.map(\.start) == words.map(\.start) && converted.map(\.end) == words.map(\.end))
        #expect(converted.map(\.probability) == words.map(\.probability))
    }

    @Test("the AISHELL clip through SpeechTranscriber: Simplified for zh-CN (CER within bound), Traditional for zh-TW, the same words either way")
    func transcriberWritesTheLocalesScript() async throws {
        try await TestEnvironment.ready()
        _ = try await TestModels.directory(for: "whisper-base")
        let clip = try #require(Corpus.item("aishell-BAC009S0724W0121"))
        func transcribe(_ locale: String) async throws -> String {
            try await FileTranscriber(options: .init(locale: Locale(identifier: locale)), store: TestModels.store)
                .transcribe(contentsOf: clip.wav16kURL).text
        }
        let simplified = try await transcribe("zh-CN")
        let traditional = try await transcribe("zh-TW")
        let rate = WordErrorRate.score(reference: clip.transcript, hypothesis: simplified, language: "zh").rate
        print("zh-CN: \(simplified) (CER \(rate)); zh-TW: \(traditional)")
        #expect(!simplified.isEmpty && ChineseScript.simplified.convert(simplified) == simplified)
        #expect(!traditional.isEmpty && ChineseScript.traditionalTaiwan.convert(traditional) == traditional)
        #expect(ChineseScript.simplified.convert(traditional) == simplified)
        #expect(rate <= 0.25, "\(simplified): CER \(rate) (the model's own Traditional text is 50 %)")
    }
}
