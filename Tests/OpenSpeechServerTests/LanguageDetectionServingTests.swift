import Foundation
import Testing
import TestSupport

/// The transcriptions route with no `language` field (issue 19): as OpenAI's API, the server detects the upload's
/// language, transcribes it in that language with the model for it, and `verbose_json` names the language detected.
@Suite(.serialized) struct LanguageDetectionServingTests {
    @Test("no language field: French detected and written in French, English by the English model; a language given is kept")
    func detectsWithoutLanguage() async throws {
        _ = try await TestModels.directory(for: "whisper-base")
        let french = try #require(Corpus.item("pv-leopard-fr")), english = try #require(Corpus.item("jfk"))
        // No --locale and no --model: the server detects, and picks the model per language.
        let server = try await RunningServer.start(model: nil)
        let url = "\(server.baseURL)/v1/audio/transcriptions"

        let heard = try await curl(url, ["-F", "file=@\(french.originalURL.path)", "-F", "model=whisper-1",
                                   "-F", "response_format=verbose_json"])
        #expect(heard.status == 200, "\(heard.body)")
        #expect(heard.json?["language"] as? String == "french", "\(heard.body)")
        #expect((heard.json?["language_probability"] as? Double ?? 0) > 0.5, "\(heard.body)")
        let text = heard.json?["text"] as? String ?? ""
        let frenchRate = WordErrorRate.score(reference: french.transcript, hypothesis: text, language: "fr").rate
        #expect(frenchRate < 0.35, "WER \(frenchRate): \(text)")

        let englishHeard = try await curl(url, ["-F", "file=@\(english.originalURL.path)", "-F", "response_format=verbose_json"])
        #expect(englishHeard.status == 200, "\(englishHeard.body)")
        #expect(englishHeard.json?["language"] as? String == "english", "\(englishHeard.body)")
        #expect(wordErrorRate(englishHeard.json?["text"] as? String ?? "", english.transcript) <= 0.1, "\(englishHeard.body)")

        let given = try await curl(url, ["-F", "file=@\(french.originalURL.path)", "-F", "language=fr",
                                   "-F", "model=whisper-base", "-F", "response_format=verbose_json"])
        #expect(given.status == 200 && given.json?["language"] as? String == "french", "\(given.body)")
        #expect(given.json?["language_probability"] == nil, "a language given is not detected: \(given.body)")
        #expect(try await server.stop() == 0)
    }
}
