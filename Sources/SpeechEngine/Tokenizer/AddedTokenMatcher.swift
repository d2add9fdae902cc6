/// Finds added tokens (`<|endoftext|>`, `<|en|>`...) written literally in text, leftmost first and
/// longest at a position, as HF tokenizers does before encoding the text between them.
struct AddedTokenMatcher: Sendable {
    /// Candidates by first scalar, longest first.
    private let candidates: [Unicode.Scalar: [(scalars: [Unicode.Scalar], id: Int)]]

    init(_ tokens: [(String, Int)]) {
        var candidates: [Unicode.Scalar: [(scalars: [Unicode.Scalar], id: Int)]] = [:]
        for (text, id) in tokens {
            let scalars = Array(text.unicodeScalars)
            guard let first = scalars.first else { continue }
            candidates[first, default: []].append((scalars, id))
        }
        self.candidates = candidates.mapValues { $0.sorted { $0.scalars.count > $1.scalars.count } }
    }

    /// Non-overlapping matches in order: the range in `scalars` and the token id.
    func matches(in scalars: [Unicode.Scalar]) -> [(Range<Int>, Int)] {
        guard !candidates.isEmpty else { return [] }
        var result: [(Range<Int>, Int)] = []
        var position = 0
        search: while position < scalars.count {
            if let list = candidates[scalars[position]] {
                for candidate in list where position + candidate.scalars.count <= scalars.count
                    && scalars[position..<(position + candidate.scalars.count)].elementsEqual(candidate.scalars) {
                    result.append((position..<(position + candidate.scalars.count), candidate.id))
                    position += candidate.scalars.count
                    continue search
                }
            }
            position += 1
        }
        return result
    }
}
