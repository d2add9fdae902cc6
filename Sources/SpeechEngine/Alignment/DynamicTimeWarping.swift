/// Dynamic time warping over a cost matrix of negated similarities, as Whisper's word alignment uses it.
enum DynamicTimeWarping {
    /// The monotonic path `(row, column)` through `similarity` (`rows × columns`, row-major) that
    /// maximises the summed similarity; ties prefer the diagonal, then the row step, then the column step.
    static func path(_ similarity: [Float], rows n: Int, columns m: Int) -> [(row: Int, column: Int)] {
        guard n > 0, m > 0 else { return [] }
        let width = m + 1
        var cost = [Float](repeating: .infinity, count: (n + 1) * width)
        var trace = [Int8](repeating: -1, count: (n + 1) * width)
        cost[0] = 0
        for j in 1...m {
            for i in 1...n {
                let c0 = cost[(i - 1) * width + j - 1], c1 = cost[(i - 1) * width + j], c2 = cost[i * width + j - 1]
                let c: Float, t: Int8
                if c0 < c1 && c0 < c2 { c = c0; t = 0 } else if c1 < c0 && c1 < c2 { c = c1; t = 1 } else { c = c2; t = 2 }
                cost[i * width + j] = c - similarity[(i - 1) * m + j - 1]
                trace[i * width + j] = t
            }
        }
        for k in 0...m { trace[k] = 2 }
        for k in 0...n { trace[k * width] = 1 }
        var i = n, j = m
        var result: [(Int, Int)] = []
        while i > 0 || j > 0 {
            result.append((i - 1, j - 1))
            switch trace[i * width + j] {
            case 0: i -= 1; j -= 1
            case 1: i -= 1
            default: j -= 1
            }
        }
        return result.reversed()
    }
}
