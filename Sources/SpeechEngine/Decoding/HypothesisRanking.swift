extension WindowDecoding {
    /// The candidates' tokens best first by `score`, the first of equal scores first (the one the decoder keeps
    /// as its result, so it leads), one per distinct text (timestamps aside), at most `limit`.
    func ranked(_ candidates: [(tokens: [Int], score: Double)], limit: Int) -> [[Int]] {
        let order = candidates.indices.sorted { a, b in
            candidates[a].score != candidates[b].score ? candidates[a].score > candidates[b].score : a < b
        }
        var texts: Set<String> = []
        var result: [[Int]] = []
        for index in order where result.count < limit {
            let tokens = candidates[index].tokens
            if texts.insert(tokenizer.decode(tokens)).inserted { result.append(tokens) }
        }
        return result
    }
}
