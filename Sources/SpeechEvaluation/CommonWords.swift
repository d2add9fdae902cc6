/// Words two transcripts of the same audio share, for comparing what each says about them (their times): the pairs of
/// a longest common subsequence of the words' lower-cased letters and digits, in order.
public enum CommonWords {
    /// Index pairs `(i, j)`, `a[i]` and `b[j]` the same word; a word with no letter or digit pairs with nothing.
    public static func pairs(_ a: [String], _ b: [String]) -> [(Int, Int)] {
        func key(_ word: String) -> String { String(word.lowercased().filter { $0.isLetter || $0.isNumber }) }
        let x = a.map(key), y = b.map(key)
        // lengths[i][j]: the longest common subsequence of x[i...] and y[j...].
        var lengths = [[Int]](repeating: [Int](repeating: 0, count: y.count + 1), count: x.count + 1)
        for i in stride(from: x.count - 1, through: 0, by: -1) {
            for j in stride(from: y.count - 1, through: 0, by: -1) {
                lengths[i][j] = !x[i].isEmpty && x[i] == y[j]
                    ? lengths[i + 1][j + 1] + 1 : max(lengths[i + 1][j], lengths[i][j + 1])
            }
        }
        var pairs: [(Int, Int)] = []
        var i = 0, j = 0
        while i < x.count && j < y.count {
            if !x[i].isEmpty && x[i] == y[j] {
                pairs.append((i, j))
                i += 1
                j += 1
            } else if lengths[i + 1][j] >= lengths[i][j + 1] {
                i += 1
            } else {
                j += 1
            }
        }
        return pairs
    }
}
