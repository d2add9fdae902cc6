@testable import OpenSpeech
import SpeechEngine
import Testing

/// How a volatile-only preview decodes the window, without a model.
@Suite struct PreviewDecodingTests {
    @Test("a preview hears the window's audio and at least three seconds of padding, in whole seconds")
    func positions() {
        let preview = PreviewDecoding()
        #expect(preview.positions(forSamples: 0) == 150)
        #expect(preview.positions(forSamples: 1_600) == 200)  // 0.1 s + 3 s of padding → 4 s
        #expect(preview.positions(forSamples: 16_000) == 200)  // 1 s + 3 s
        #expect(preview.positions(forSamples: 16_001) == 250)
        #expect(preview.positions(forSamples: 4 * 16_000) == 350)
        for samples in stride(from: 0, through: 30 * 16_000, by: 1_234) {
            let positions = preview.positions(forSamples: samples)
            #expect(positions % 50 == 0)
            #expect(positions * 320 >= min(samples + 150 * 320, 30 * 16_000))
            #expect(positions <= PreviewDecoding.fullPositions)
        }
    }

    @Test("past 27 s of audio a preview hears the whole 30 s window")
    func longWindows() {
        #expect(PreviewDecoding().positions(forSamples: 27 * 16_000 + 1) == 1_500)
        #expect(PreviewDecoding().positions(forSamples: 40 * 16_000) == 1_500)
    }

    @Test("previews of a float32 or bf16 session decode in int8 where oneDNN runs it, else at the session's precision")
    func previewPrecision() {
        let preview = PreviewDecoding()
        let int8Runs = ComputeType.int8.resolved == .int8
        #expect(preview.computeType(forSession: .float32) == (int8Runs ? .int8 : nil))
        #expect(preview.computeType(forSession: .int8) == nil)
        #expect(preview.computeType(forSession: .auto) == nil || ComputeType.auto.resolved != .int8)
        var same = preview
        same.sessionPrecision = true
        #expect(same.computeType(forSession: .float32) == nil)
    }

    @Test("the encoder's shapes stay few over any window lengths (the engine caches a product per shape)")
    func fewShapes() {
        let shapes = Set(stride(from: 0, through: 30 * 16_000, by: 160).map { PreviewDecoding().positions(forSamples: $0) })
        #expect(shapes.count <= 30)
    }

    @Test("the tokens a preview decodes grow with its audio, from a floor")
    func tokenCap() {
        let preview = PreviewDecoding()
        #expect(preview.maxNewTokens(forSamples: 0) == 12)
        #expect(preview.maxNewTokens(forSamples: 16_000) == 24)
        #expect(preview.maxNewTokens(forSamples: 10 * 16_000) == 132)
    }

    static func words(_ text: String) -> [Word] {
        text.split(separator: " ").enumerated().map { index, word in
            Word(start: Double(index) * 0.3, end: Double(index) * 0.3 + 0.25, word: " " + word, probability: 0.9)
        }
    }

    static func text(_ words: [Word]) -> String { words.map(\.word).joined().trimmingCharacters(in: .whitespaces) }

    @Test("loops the model falls into on a short window are cut to their first occurrence")
    func loopsCut() {
        let preview = PreviewDecoding()
        #expect(Self.text(preview.withoutLoops(Self.words("And so and so and so and so and so"))) == "And so")
        #expect(Self.text(preview.withoutLoops(Self.words("Experience Experience Experience Experience"))) == "Experience")
        let sentence = "She had your dog suit in greasy wash water all year."
        #expect(Self.text(preview.withoutLoops(Self.words(sentence + " " + sentence + " She had your"))) == sentence)
    }

    @Test("speech that repeats a word or a short phrase once is kept")
    func speechKept() {
        let preview = PreviewDecoding()
        for text in ["that that is is that that is not is not", "no no I said", "ask not what your country can do for you ask what you can do for your country",
                     "It was the first great sorrow of his life"] {
            #expect(Self.text(preview.withoutLoops(Self.words(text))) == text)
        }
    }
}
