/// Spots a live decoding that echoes the text before it instead of transcribing: a run of words the prompt's last
/// sentences hold, written again over new audio.
///
/// Live decodings are prompted with the final text so far. After a final that went wrong ("And saw my fellow
/// Americans. asked not to pay for his money."), tiny.en decoded the next seconds of speech ("ask not what your country
/// can do for you") as that text again, and the one after from the new prompt, a loop carried on by its own output
/// (BENCHMARKS.md, "live finals decided at the detector's pauses"). File mode's `PromptCopy` looks for a run said twice
/// within one decoding; here the first copy is in the prompt. Such a decoding is decoded again without the text
/// before it. Speech that says six words of what was just said again does occur (a refrain, a formula), and decoding
/// it without the prompt loses only the prompt's help, not the words.
struct PromptEcho: Equatable {
    /// The fewest words in a row the decoding and the prompt share.
    var minimumWords = 6
    /// How many of the prompt's last words are looked in.
    var promptWords = 40

    /// Whether `words` (a decoding's words, as written) hold `minimumWords` in a row that `promptText`'s last
    /// `promptWords` words also hold, compared as lowercase letters and digits.
    func isFound(in words: [String], promptText: String) -> Bool {
        let said = Self.keys(promptText.split(whereSeparator: \.isWhitespace).suffix(promptWords))
        let heard = Self.keys(words.flatMap { $0.split(whereSeparator: \.isWhitespace) })
        guard minimumWords > 0, said.count >= minimumWords, heard.count >= minimumWords else { return false }
        let runs = Set((0...(said.count - minimumWords)).map { said[$0..<($0 + minimumWords)] })
        return (0...(heard.count - minimumWords)).contains { runs.contains(heard[$0..<($0 + minimumWords)]) }
    }

    private static func keys(_ words: some Sequence<Substring>) -> [String] {
        words.map { LocalAgreement.normalized(String($0)) }.filter { !$0.isEmpty }
    }
}
