import Testing
@testable import SpeechEngine

/// The loop check that sends a window back to the temperature fallback: one long phrase said twice in a row.
@Suite("Repetition loops")
struct RepetitionLoopTests {
    let check = RepetitionLoop(minimumLength: 4)
    /// Ids at or above this are special and timestamp tokens.
    let textEnd = 1000

    @Test("a phrase of at least the minimum length, twice in a row, is a loop, wherever it is in the window")
    func repeatedPhrase() {
        #expect(check.isFound(in: [1, 2, 3, 4, 1, 2, 3, 4], textEnd: textEnd))
        #expect(check.isFound(in: [9, 8, 5, 6, 7, 8, 9, 5, 6, 7, 8, 9, 3], textEnd: textEnd))
        #expect(check.isFound(in: [5, 6, 7, 8, 5, 6, 7, 8, 5, 6, 7, 8], textEnd: textEnd))
    }

    @Test("shorter repeats, repeats with words between them, and distinct text are not")
    func naturalText() {
        #expect(!check.isFound(in: [1, 2, 3, 1, 2, 3, 1, 2, 3], textEnd: textEnd))
        #expect(!check.isFound(in: [1, 2, 3, 4, 9, 1, 2, 3, 4], textEnd: textEnd))
        #expect(!check.isFound(in: Array(1...40), textEnd: textEnd))
        #expect(!check.isFound(in: [], textEnd: textEnd))
        #expect(!check.isFound(in: [7, 7, 7], textEnd: textEnd))
    }

    @Test("timestamps between the repeats do not hide a loop; special tokens alone are not one")
    func timestampsSkipped() {
        #expect(check.isFound(in: [1000, 1, 2, 3, 4, 1100, 1101, 1, 2, 3, 4, 1200], textEnd: textEnd))
        #expect(!check.isFound(in: [1000, 1001, 1002, 1003, 1000, 1001, 1002, 1003], textEnd: textEnd))
    }

    @Test("a long loop in a long window is found; one word said many times is found once it reaches the length")
    func longWindows() {
        let phrase = Array(100..<112)
        #expect(RepetitionLoop(minimumLength: 12).isFound(in: Array(1...60) + phrase + phrase + [3], textEnd: textEnd))
        #expect(!RepetitionLoop(minimumLength: 12).isFound(in: Array(repeating: 5, count: 23), textEnd: textEnd))
        #expect(RepetitionLoop(minimumLength: 12).isFound(in: Array(repeating: 5, count: 24), textEnd: textEnd))
    }
}
