import Testing
@testable import OpenSpeech

/// The prompt policy, on hand-made tokens.
@Suite struct PromptCompositionTests {
    @Test("a short context leads the prompt and the text before fills the rest, its end kept")
    func shortContext() {
        let composition = PromptComposition(contextTokens: Array(1...10))
        #expect(composition.tokens(previous: []) == Array(1...10))
        let previous = Array(1_000..<1_500)
        let prompt = composition.tokens(previous: previous)
        #expect(prompt.count == PromptComposition.limit)
        #expect(Array(prompt.prefix(10)) == Array(1...10))
        #expect(Array(prompt.suffix(213)) == Array(previous.suffix(213)))
    }

    @Test("a long context stays out of the prompt: the text before gets all of it")
    func longContext() {
        let composition = PromptComposition(contextTokens: Array(0...PromptComposition.contextLimit))
        #expect(composition.context.isEmpty)
        let previous = Array(1_000..<1_500)
        #expect(composition.tokens(previous: previous) == Array(previous.suffix(PromptComposition.limit)))
        #expect(PromptComposition(contextTokens: Array(1...PromptComposition.contextLimit)).context.count
                == PromptComposition.contextLimit)
    }

    @Test func nothingAtAll() {
        #expect(PromptComposition(contextTokens: []).tokens(previous: []).isEmpty)
    }
}
