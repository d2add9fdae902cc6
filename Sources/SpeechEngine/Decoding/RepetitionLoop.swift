/// Spots the decoder falling into a loop: a run of text tokens said again right after itself ("…they fell down
/// before him and so swinged them that they fell down before him and so swinged them…").
///
/// Whisper's own guard, the compression ratio (`CompressionRatio`, threshold 2.4), catches loops that fill most of
/// a window; one repetition of a long phrase in a window of other text stays under it. Timestamp tokens are left
/// out (a repeated segment carries new times), so the check runs on the text alone.
struct RepetitionLoop {
    /// The shortest repeated run that counts: long enough that natural speech ("no, no", "I know, I know")
    /// never reaches it.
    let minimumLength: Int

    /// Whether `tokens` (ids below `textEnd` are text; the rest are special or timestamp tokens, skipped) contain a
    /// run of at least `minimumLength` text tokens followed at once by the same run.
    func isFound(in tokens: [Int], textEnd: Int) -> Bool {
        Self.repeatedRun(in: tokens.filter { $0 < textEnd }, minimumLength: minimumLength) { _ in true }
    }

    /// Whether `text` holds a run of at least `minimumLength` tokens followed at once by the same run, one that
    /// `accepts` (each run found is offered, shortest period first, until one is accepted).
    static func repeatedRun(in text: [Int], minimumLength: Int, accepts: (ArraySlice<Int>) -> Bool) -> Bool {
        guard minimumLength > 0, text.count >= 2 * minimumLength else { return false }
        // For each period p, a run of p matches text[i] == text[i + p] is one block of p repeated back to back.
        for period in minimumLength...(text.count / 2) {
            var matches = 0
            for i in 0..<(text.count - period) {
                guard text[i] == text[i + period] else { matches = 0; continue }
                matches += 1
                if matches >= period, accepts(text[(i + 1 - period)...i]) { return true }
            }
        }
        return false
    }
}
