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

/// The live prompt-echo rule, on the words of a real loop (a listen run's JFK clip) and of speech that repeats itself.
@Suite struct PromptEchoTests {
    let before = "I laid up all my goods. And saw my fellow Americans. asked not to pay for his money."

    @Test("a decoding that writes the prompt's last words again over new audio is an echo")
    func echo() {
        let words = [" And", " so", " my", " fellow", " Americans", " asked", " not", " to", " pay", " for", " his",
                     " money."]
        #expect(PromptEcho().isFound(in: words, promptText: before))
        // Punctuation and case do not hide it; words split across strings do not either.
        #expect(PromptEcho().isFound(in: [" ASKED NOT", " to pay, for", " his"], promptText: before))
    }

    @Test("the new speech, five shared words, or a run the prompt said long ago are not")
    func notEcho() {
        #expect(!PromptEcho().isFound(in: [" ask", " not", " what", " your", " country", " can", " do", " for", " you"],
                                      promptText: before))
        #expect(!PromptEcho().isFound(in: [" to", " pay", " for", " his", " money", " now"],
                                      promptText: "we will pay for his money"))
        let long = "asked not to pay for his money " + String(repeating: "and then the ship sailed on ", count: 8)
        #expect(!PromptEcho().isFound(in: [" asked not to pay for his money"], promptText: long))
        #expect(!PromptEcho().isFound(in: [" asked not to pay for his money"], promptText: ""))
    }
}
