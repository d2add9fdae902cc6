/// Word times for a Moonshine clip from its decoder's cross-attention, by Whisper's method (`CrossAttentionAlignment`:
/// softmax, standardise, median filter, mean over heads, dynamic time warping), on the heads that align.
///
/// Moonshine names no alignment heads. `alignmentHeads` were found by measurement (`whisper-bench moonshine-heads`,
/// BENCHMARKS.md "Moonshine word times"): each of the decoder's 64 cross-attention heads aligned the corpus's English
/// clips alone, its word starts and ends compared with whisper-base's word times on the clips where both models wrote
/// the same words (a third of the clips); the best six together (five of the six best alone) agree with whisper-base
/// within 53 ms at a word's start and 68 ms at its end on average on the other two thirds, with no bias.
enum MoonshineWordAlignment {
    /// (layer, head) pairs, best first.
    static let alignmentHeads: [(layer: Int, head: Int)] = [(5, 5), (5, 6), (4, 2), (6, 1), (6, 5), (4, 0)]

    /// Seconds between two encoder frames: conv1's stride 64 times conv2's 3 times conv3's 2, at 16 kHz.
    static let secondsPerFrame = 384.0 / 16_000

    /// The words of `tokens` (each with its tokens) with times in seconds from the clip's start: a word starts at a piece beginning with
    /// `▁`; punctuation joins its neighbour as Whisper's does. `headScores`: per head, its `[steps × frames]` scores
    /// (`headScores(_:recorded:frames:selecting:)`, one step per token plus the end's); `probabilities`: per token.
    static func words(tokens: [Int], probabilities: [Double], headScores: [[Float]], frames: Int,
                      tokenizer: MoonshineTokenizer, prependPunctuations: String,
                      appendPunctuations: String) -> [WordTimestamps.Timing] {
        let steps = tokens.count + 1
        guard !tokens.isEmpty, !headScores.isEmpty, frames > 0, headScores.allSatisfy({ $0.count == steps * frames })
        else { return [] }
        let path = CrossAttentionAlignment.path(headScores: headScores, tokens: steps, frames: frames, rows: 0..<steps)
        // The time at which each row (token) starts on the path; row `tokens.count` is the end token's.
        var jumps: [Double] = []
        var previous: Int?
        for step in path where step.row != previous {
            jumps.append(Double(step.column) * secondsPerFrame)
            previous = step.row
        }
        var timings: [WordTimestamps.Timing] = []
        var first = 0
        for index in tokens.indices where index == tokens.count - 1 || tokenizer.startsWord(tokens[index + 1]) {
            let range = first..<(index + 1)
            let start = jumps.indices.contains(range.lowerBound) ? jumps[range.lowerBound] : jumps.last ?? 0
            let end = jumps.indices.contains(range.upperBound) ? jumps[range.upperBound] : Double(frames) * secondsPerFrame
            let wordProbabilities = range.compactMap { probabilities.indices.contains($0) ? libmExp(probabilities[$0]) : nil }
            timings.append(WordTimestamps.Timing(
                word: tokenizer.decode(Array(tokens[range])), tokens: Array(tokens[range]), start: start, end: max(start, end),
                probability: wordProbabilities.isEmpty ? .nan : wordProbabilities.reduce(0, +) / Double(wordProbabilities.count)))
            first = index + 1
        }
        WordTimestamps.mergePunctuations(&timings, prepended: prependPunctuations, appended: appendPunctuations)
        return timings.filter { !$0.word.isEmpty }
    }

    /// The `[steps × frames]` scores of the heads at `selecting` (indices into the record's heads) from a decoding's
    /// step-major record of `recorded` heads (`MoonshineDecoder.attentionRecord`).
    static func headScores(_ record: [Float], recorded: Int, frames: Int, selecting: [Int]) -> [[Float]] {
        guard recorded > 0, frames > 0 else { return [] }
        let steps = record.count / (recorded * frames)
        return selecting.map { head in
            var scores: [Float] = []
            scores.reserveCapacity(steps * frames)
            for step in 0..<steps {
                let first: Int = (step * recorded + head) * frames
                scores += record[first..<(first + frames)]
            }
            return scores
        }
    }
}
