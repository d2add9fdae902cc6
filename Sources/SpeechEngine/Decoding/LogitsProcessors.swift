/// One rule applied to a decoding step's scores, for one hypothesis: a small value type, applied in place to the
/// row of `count` values (one per vocabulary token) that scores the hypothesis's next token. `sampled` holds the
/// tokens the hypothesis generated in this window so far (the prompt excluded).
protocol LogitsProcessor: Sendable {
    func apply(_ row: UnsafeMutablePointer<Float>, count: Int, sampled: ArraySlice<Int>)
}

/// The processors run at each step, in two stages: `masks` on the raw logits (before the row is normalised,
/// so they change the probabilities of what is left), then `adjustments` added to the normalised
/// log-probabilities (a bonus there enters the hypothesis's score as it is: shallow fusion).
struct LogitsProcessorChain: Sendable {
    var masks: [any LogitsProcessor] = []
    var adjustments: [any LogitsProcessor] = []
    /// The contextual biasing among `adjustments`, if any: its bonuses are taken out of reported log-probabilities.
    var biasing: ContextualBiasing?

    func mask(_ row: UnsafeMutablePointer<Float>, count: Int, sampled: ArraySlice<Int>) {
        for processor in masks { processor.apply(row, count: count, sampled: sampled) }
    }

    /// Applies the adjustments to a row that holds logits whose log-normaliser was already taken.
    func adjust(_ row: UnsafeMutablePointer<Float>, count: Int, sampled: ArraySlice<Int>) {
        for processor in adjustments { processor.apply(row, count: count, sampled: sampled) }
    }

    /// The total the adjustments added to the score of the hypothesis that generated `tokens`.
    func addedScore(_ tokens: ArraySlice<Int>) -> Double {
        biasing.map { Double($0.netBonus(tokens)) } ?? 0
    }
}

@inline(__always) func maskRange(_ row: UnsafeMutablePointer<Float>, _ range: Range<Int>) {
    guard !range.isEmpty else { return }
    (row + range.lowerBound).update(repeating: -.infinity, count: range.count)
}

/// Tokens never generated (CTranslate2's `suppress_tokens` plus the task and special tokens).
struct SuppressTokens: LogitsProcessor {
    let ids: [Int]
    func apply(_ row: UnsafeMutablePointer<Float>, count: Int, sampled: ArraySlice<Int>) {
        ids.withUnsafeBufferPointer { ids in for id in ids where id < count { row[id] = -.infinity } }
    }
}

/// Tokens not generated first (`suppress_blank`: the blank and the end of text).
struct SuppressAtBegin: LogitsProcessor {
    let ids: [Int]
    func apply(_ row: UnsafeMutablePointer<Float>, count: Int, sampled: ArraySlice<Int>) {
        guard sampled.isEmpty else { return }
        ids.withUnsafeBufferPointer { ids in for id in ids where id < count { row[id] = -.infinity } }
    }
}

/// Whisper's timestamp rules, as CTranslate2 applies them: no `<|notimestamps|>`; a timestamp first, at most
/// `maxInitialTimestamp`; timestamps in pairs (two in a row are followed by text or the end; a lone one, ending a
/// segment's text, by the end or a timestamp at or after it); after text, only a timestamp after the last one; and a
/// timestamp forced when all timestamps together outweigh every text token.
struct TimestampRules: LogitsProcessor {
    let eot: Int
    let noTimestamps: Int
    let timestampBegin: Int
    /// Last timestamp token allowed as the first token.
    let maxInitialTimestamp: Int

    func apply(_ row: UnsafeMutablePointer<Float>, count: Int, sampled: ArraySlice<Int>) {
        let step = sampled.count
        row[noTimestamps] = -.infinity
        if step == 0 {
            maskRange(row, 0..<timestampBegin)
            if maxInitialTimestamp + 1 < count { maskRange(row, (maxInitialTimestamp + 1)..<count) }
            return
        }
        var checkTimestampProbability = true
        let last = sampled[sampled.endIndex - 1]
        if last >= timestampBegin {
            let penultimate = step >= 2 ? sampled[sampled.endIndex - 2] : last
            if penultimate >= timestampBegin {
                // Two timestamps in a row close a segment: text (or the end) must follow.
                maskRange(row, timestampBegin..<count)
                checkTimestampProbability = false
            } else {
                // A lone timestamp ends a segment's text: the end, or a timestamp at or after it, must follow.
                maskRange(row, 0..<eot)
                maskRange(row, timestampBegin..<last)
            }
        } else if let lastTimestamp = sampled.last(where: { $0 >= timestampBegin }) {
            // After text, a timestamp comes after the last one: the segment it closes has a length.
            maskRange(row, timestampBegin..<min(lastTimestamp + 1, count))
        }
        if checkTimestampProbability {
            let timestampMass = Vector.logSumExp(row + timestampBegin, count: count - timestampBegin)
            let bestText = Vector.max(row, count: timestampBegin)
            if timestampMass > bestText { maskRange(row, 0..<timestampBegin) }
        }
    }
}
