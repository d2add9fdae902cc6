@testable import OpenSpeech
import SpeechEngine
import Testing

/// The committed audio a short volatile window hears before it (`WindowContext`), without a model.
@Suite struct WindowContextTests {
    /// One second of audio whose samples count the timeline's samples from `start`.
    static func audio(from start: Int, seconds: Double = 1) -> ArraySlice<Float> {
        ArraySlice((start..<(start + Int(seconds * 16_000))).map(Float.init))
    }

    @Test("a short window hears committed audio back to the start of a word, and that word's text leaves the prompt")
    func shortWindow() throws {
        var context = WindowContext()
        // 0–4 s committed: words every second ("one" at 0 s ... "four" at 3 s).
        let words = LocalAgreementTests.words("one two three four").enumerated().map { index, word in
            Word(start: Double(index), end: Double(index) + 0.8, word: word.word, probability: 0.9)
        }
        context.append(Self.audio(from: 0, seconds: 4), endingAt: 64_000, words: words)
        // A 3.5 s window from 4 s needs 2.5 s more: back to 1.5 s, i.e. "two" at 1 s.
        let heard = try #require(context.before(windowOf: 56_000))
        #expect(heard.start == 16_000)
        #expect(heard.samples.first == 16_000 && heard.samples.last == 63_999)
        #expect(heard.text == " two three four")
        // A window of the minimum length hears nothing before it.
        #expect(context.before(windowOf: Int(WindowContext.minimumSeconds * 16_000)) == nil)
    }

    @Test("context is bounded, continues only contiguous audio, and resets")
    func bounds() throws {
        var context = WindowContext()
        let minimum = Int(WindowContext.minimumSeconds * 16_000)
        context.append(Self.audio(from: 0, seconds: WindowContext.minimumSeconds + 2), endingAt: Int64(minimum + 32_000),
                       words: [Word(start: 0.5, end: 1, word: " early", probability: 1),
                               Word(start: 3, end: 3.5, word: " kept", probability: 1)])
        #expect(context.samples.count == minimum)
        #expect(context.start == 32_000)
        #expect(context.words.map(\.word) == [" kept"])
        // Audio that does not continue it (a jump in the timeline) replaces it.
        context.append(Self.audio(from: 200_000), endingAt: 216_000, words: [])
        #expect(context.start == 200_000 && context.samples.count == 16_000 && context.words.isEmpty)
        // Without words it is heard from where the window's length asks.
        let heard = try #require(context.before(windowOf: minimum - 8_000))
        #expect(heard.start == 208_000 && heard.text.isEmpty)
        context.reset(at: 216_000)
        #expect(context.before(windowOf: 1_000) == nil)
    }
}
