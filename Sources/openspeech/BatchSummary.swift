/// What a batch of `transcribe` did, said on stderr at its end: how many files were transcribed, skipped because
/// their outputs were written before (`--skip-existing`), left to other shards (`--shard`), and which failed.
struct BatchSummary {
    /// The audio files found in the inputs given.
    let found: Int
    /// Those in this process's shard (all without `--shard`).
    let share: Int
    /// Those of the share whose outputs were all written already.
    let skipped: Int
    let shard: Shard?

    /// The files of the share and where they went, e.g. "shard 1/4: 12 of 50 files".
    private var scope: String {
        guard let shard else { return "" }
        return "shard \(shard.index)/\(shard.count) has \(share) of \(found) files; "
    }

    private var skippedPart: String { skipped > 0 ? "\(skipped) skipped (outputs already written)" : "" }

    /// When no file is left to transcribe.
    var nothingToDo: String {
        scope + (share == 0 ? "nothing to transcribe." : "nothing to transcribe: \(skippedPart).")
    }

    /// The end of a run: `transcribed` files written, `failed` the inputs that failed (named).
    func summary(transcribed: Int, failed: [String]) -> String {
        var parts = ["\(transcribed) transcribed"]
        if skipped > 0 { parts.append(skippedPart) }
        if !failed.isEmpty { parts.append("\(failed.count) failed: \(failed.joined(separator: ", "))") }
        return scope + parts.joined(separator: ", ") + "."
    }
}
