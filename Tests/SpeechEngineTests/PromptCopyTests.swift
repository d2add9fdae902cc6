import Testing
@testable import SpeechEngine

/// The check that decodes a window again without its prompt's text: a run the prompt holds, said twice in a row.
@Suite("Prompt copies")
struct PromptCopyTests {
    let check = PromptCopy(minimumLength: 4)
    /// Ids at or above this are special and timestamp tokens.
    let textEnd = 1000

    @Test("a run said twice in a row, four tokens of which the prompt holds, is a copy; the same run the prompt lacks is not")
    func copies() {
        let phrase = [10, 11, 12, 13, 14, 15]
        #expect(check.isFound(in: [1, 2] + phrase + phrase + [3], prompt: [50, 10, 11, 12, 13, 51], textEnd: textEnd))
        // The spoken run's first token differs from the prompt's (" Ask" for " ask"): the rest matches.
        #expect(check.isFound(in: [9] + phrase + [9] + phrase, prompt: [8, 10, 11, 12, 13, 14, 15], textEnd: textEnd))
        #expect(!check.isFound(in: [1, 2] + phrase + phrase + [3], prompt: [50, 10, 11, 12, 51, 13, 14], textEnd: textEnd))
        #expect(!check.isFound(in: [1, 2] + phrase + phrase + [3], prompt: [], textEnd: textEnd))
    }

    @Test("the prompt's words said once, or twice with other words between, are not a copy")
    func saidOnce() {
        let phrase = [10, 11, 12, 13, 14, 15]
        #expect(!check.isFound(in: [1, 2] + phrase + [3, 4], prompt: phrase[...], textEnd: textEnd))
        #expect(!check.isFound(in: phrase + [3, 4, 5] + phrase, prompt: phrase[...], textEnd: textEnd))
        #expect(!check.isFound(in: [10, 11, 12, 10, 11, 12], prompt: [10, 11, 12], textEnd: textEnd))
    }

    @Test("timestamps between the copies do not hide them; the prompt's special tokens are not text")
    func timestampsSkipped() {
        let phrase = [10, 11, 12, 13]
        #expect(check.isFound(in: [1000] + phrase + [1200, 1201] + phrase + [1300], prompt: [1500] + phrase,
                              textEnd: textEnd))
        #expect(!check.isFound(in: [1000, 1001, 1002, 1003, 1000, 1001, 1002, 1003],
                               prompt: [1000, 1001, 1002, 1003], textEnd: textEnd))
    }
}
