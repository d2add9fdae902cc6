import Testing
@testable import SpeechEngine

/// Words written after the model took the speech for over (`GuessedEnding`): a pure policy, no model. The figures are
/// Moonshine base's greedy steps on corpus clips (ONNX Runtime, rounded): each token's log-probability and the end
/// token's at the step that chose it.
@Suite struct GuessedEndingTests {
    typealias Step = (piece: String, logProbability: Double, end: Double)

    /// The tokens `GuessedEnding.moonshine` keeps of `steps`, as their text.
    func kept(_ steps: [Step]) -> String {
        let count = GuessedEnding.moonshine.kept(logProbabilities: steps.map(\.logProbability),
                                                 endLogProbabilities: steps.map(\.end),
                                                 startsWord: { steps[$0].piece.hasPrefix("▁") })
        return steps.prefix(count).map(\.piece).joined().replacingOccurrences(of: "▁", with: " ")
    }

    /// LJ001-0007, whose recording stops after "of about 1455,": the end nearly chosen, then a sentence of its own.
    let cutShort: [Step] = [
        ("▁of", -0.0, -17.66), ("▁about", -0.0, -20.31), ("▁", -0.03, -13.07), ("1", -0.0, -14.16), ("4", -0.0, -18.15),
        ("5", -0.01, -17.26), ("5", -0.0, -27.17), (",", -0.36, -6.52), ("▁was", -1.66, -4.28),
        ("▁published", -2.42, -8.94), ("▁in", -0.56, -9.2), ("▁", -0.83, -9.32), ("1", -0.31, -12.38),
        ("9", -0.84, -12.08), ("6", -1.89, -9.3), ("5", -2.05, -10.07), (".", -1.04, -9.04),
    ]

    /// 4198-12281-0005's Latin, heard: as unsure, but the end unlikely before it.
    let heardButUnsure: [Step] = [
        ("▁Lord", -0.04, -5.34), ("▁God", -0.04, -10.83), (",", -0.61, -6.51), ("▁D", -1.17, -5.95),
        ("ame", -1.12, -10.75), ("hi", -0.99, -9.64), ("▁Pot", -1.2, -7.52), ("um", -0.81, -10.67), (".", -0.35, -2.88),
    ]

    @Test("the words after a likely end are dropped when every one of them is unsure")
    func guessedWordsDropped() {
        #expect(kept(cutShort) == " of about 1455,")
        // earnings22 sample 83: a closing "So." after the last words heard.
        #expect(kept([("▁the", -0.0, -14.0), ("▁right", -0.0, -15.0), ("▁s", -0.07, -11.68), ("izing", -0.01, -18.15),
                      (".", -0.35, -11.79), ("▁So", -0.9, -1.4), (".", -0.67, -6.05)]) == " the right sizing.")
    }

    @Test("unsure words the end was unlikely before, and sure words after a likely end, are kept")
    func heardWordsKept() {
        let all = heardButUnsure.map(\.piece).joined().replacingOccurrences(of: "▁", with: " ")
        #expect(kept(heardButUnsure) == all)
        // The same likely end, but the words after it sure: the speech went on.
        var sure = cutShort
        for index in 8..<sure.count { sure[index].logProbability = -0.1 }
        #expect(kept(sure) == cutShort.map(\.piece).joined().replacingOccurrences(of: "▁", with: " "))
    }

    @Test("only a word's start begins the words dropped, never the first token; empty and one-token decodings stay")
    func boundaries() {
        // The likely end falls inside a word ("▁Pot" "um"): a word is never split, and it did not open one.
        #expect(kept([("▁We", -0.01, -12), ("▁met", -0.02, -11), ("▁Pot", -1.5, -9), ("um", -1.2, -3), (".", -1.1, -8)])
                == " We met Potum.")
        #expect(kept([("▁So", -1.5, -1), (".", -1.0, -2)]) == " So.", "the first token is the opening rule's")
        #expect(kept([]) == "")
        #expect(kept([("▁Yes", -2, -1)]) == " Yes")
    }
}
