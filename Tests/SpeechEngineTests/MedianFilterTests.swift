import Testing
@testable import SpeechEngine

/// Word timing's median filter over frames (reflecting at the edges, as Whisper's `median_filter`): the in-place
/// version against the plain definition, a sorted copy of each window.
@Suite struct MedianFilterTests {
    static func reference(_ x: [Float], rows: Int, columns: Int, width: Int) -> [Float] {
        let half = width / 2
        guard columns > half else { return x }
        var out = x
        for r in 0..<rows {
            for j in 0..<columns {
                let window = (-half...half).map { k -> Float in
                    var read = abs(j + k)
                    if read >= columns { read = 2 * columns - read - 2 }
                    return x[r * columns + read]
                }
                out[r * columns + j] = window.sorted()[half]
            }
        }
        return out
    }

    @Test("equals each window's sorted middle, edges reflected, repeated values included",
          arguments: [(1, 7, 7), (3, 40, 7), (5, 4, 7), (2, 9, 3), (4, 120, 5)])
    func matchesDefinition(rows: Int, columns: Int, width: Int) {
        var generator = SeededGenerator(seed: UInt64(rows * 1_000 + columns))
        // Few distinct values, so windows hold repeats.
        let x = (0..<(rows * columns)).map { _ in Float(Int.random(in: -4...4, using: &generator)) / 3 }
        #expect(CrossAttentionAlignment.medianFilter(x, rows: rows, columns: columns, width: width)
                == Self.reference(x, rows: rows, columns: columns, width: width))
    }
}
