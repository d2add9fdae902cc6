/// The constraints applied to each step's logits before choosing a token, as CTranslate2 applies them
/// for Whisper: suppressed tokens, tokens suppressed at the first step, and the timestamp rules.
struct LogitFilter {
    let suppressed: [Int]
    let suppressedAtBegin: [Int]
    let timestamps: Bool
    let eot: Int
    let noTimestamps: Int
    let timestampBegin: Int
    let vocabularySize: Int
    /// Last timestamp allowed as the first token.
    let maxInitialTimestamp: Int

    /// Masks `logits` (one row of `vocabularySize`) for the next token after `sampled`.
    func apply(_ logits: UnsafeMutablePointer<Float>, sampled: ArraySlice<Int>) {
        let step = sampled.count
        for id in suppressed { logits[id] = -.infinity }
        if step == 0 { for id in suppressedAtBegin { logits[id] = -.infinity } }
        guard timestamps else { return }
        logits[noTimestamps] = -.infinity
        if step == 0 {
            mask(logits, 0..<timestampBegin)
            if maxInitialTimestamp + 1 < vocabularySize { mask(logits, (maxInitialTimestamp + 1)..<vocabularySize) }
            return
        }
        var checkTimestampProbability = true
        let last = sampled[sampled.endIndex - 1]
        if last >= timestampBegin {
            let penultimate = step >= 2 ? sampled[sampled.endIndex - 2] : last
            if penultimate >= timestampBegin {
                // Two timestamps in a row close a segment: text (or the end) must follow.
                mask(logits, timestampBegin..<vocabularySize)
                checkTimestampProbability = false
            } else {
                // A lone timestamp ends a segment's text: another timestamp or the end must follow.
                mask(logits, 0..<eot)
            }
        }
        // Timestamps never decrease.
        if let lastTimestamp = sampled.last(where: { $0 >= timestampBegin }), lastTimestamp > timestampBegin {
            mask(logits, timestampBegin..<lastTimestamp)
        }
        if checkTimestampProbability {
            // If all timestamps together are likelier than any single text token, force a timestamp.
            let timestampMass = Vector.logSumExp(logits + timestampBegin, count: vocabularySize - timestampBegin)
            let bestText = Vector.max(logits, count: timestampBegin)
            if timestampMass > bestText { mask(logits, 0..<timestampBegin) }
        }
    }

    @inline(__always) private func mask(_ logits: UnsafeMutablePointer<Float>, _ range: Range<Int>) {
        (logits + range.lowerBound).update(repeating: -.infinity, count: range.count)
    }
}
