extension WhisperSession {
    /// Gives each piece of a window's best hypothesis its text in every other hypothesis of `result` that spans
    /// the same stretch of audio: consecutive pieces of it from the piece's start time exactly to its end time.
    /// The piece's own text comes first; the others follow in the hypotheses' order (best first), distinct and
    /// not blank. `split` cuts a hypothesis as the best one was cut.
    func addAlternatives(to pieces: inout [Piece], from result: WindowResult, split: ([Int]) -> [Piece]) {
        let tokenizer = model.tokenizer
        let others = result.hypotheses.filter { $0 != result.tokens }.map(split)
        for p in pieces.indices {
            let start = pieces[p].start, end = pieces[p].end
            var texts = [tokenizer.decode(pieces[p].tokens)]
            for other in others {
                guard let first = other.firstIndex(where: { $0.start == start }) else { continue }
                var tokens: [Int] = []
                var spans = false
                for piece in other[first...] {
                    tokens += piece.tokens
                    if piece.end >= end { spans = piece.end == end; break }
                }
                guard spans else { continue }
                let text = tokenizer.decode(tokens)
                if !texts.contains(text) && !text.allSatisfy(\.isWhitespace) { texts.append(text) }
            }
            pieces[p].alternatives = texts
        }
    }
}
