/// Spots the decoder copying its prompt instead of transcribing: a run of text the prompt holds, said twice in a row.
///
/// A prompt whose words are also spoken (a contextual phrase, a custom language model's sentence, the text before)
/// can pull Whisper into writing them again where the audio says something else, or skipping the speech before them:
/// with "ask not what your country can do for you" as context, whisper-base wrote that phrase twice for JFK's "…ask
/// not what your country can do for you, ask what you can do for your country" and left out "And so my fellow
/// Americans". Such a window is decoded again without the prompt's text (as Whisper drops its prompt after a window
/// decoded at a high temperature). Natural speech that says a run twice over, a run the prompt also holds, is rare,
/// and decoding it without the prompt loses only the prompt's help.
struct PromptCopy {
    /// The fewest tokens the repeated run and the prompt share.
    let minimumLength: Int

    /// Whether `tokens` (ids below `textEnd` are text; the rest, special and timestamp tokens, are skipped) hold a
    /// run of at least `minimumLength` text tokens followed at once by the same run, `minimumLength` tokens of which
    /// (in a row) are in `prompt`.
    func isFound(in tokens: [Int], prompt: ArraySlice<Int>, textEnd: Int) -> Bool {
        let said = prompt.filter { $0 < textEnd }
        guard minimumLength > 0, said.count >= minimumLength else { return false }
        let promptRuns = Set((0...(said.count - minimumLength)).map { said[$0..<($0 + minimumLength)] })
        return RepetitionLoop.repeatedRun(in: tokens.filter { $0 < textEnd }, minimumLength: minimumLength) { run in
            (run.startIndex...(run.endIndex - minimumLength)).contains {
                promptRuns.contains(run[$0..<($0 + minimumLength)])
            }
        }
    }
}
