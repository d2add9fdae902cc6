import Foundation

/// Rotary position embedding as Moonshine applies it: in each head, the first `2 · frequencies` values are taken as
/// adjacent pairs `(x₂ᵢ, x₂ᵢ₊₁)`, and the pair at position p is turned by the angle `p · fᵢ`; the head's other values
/// are left as they are (partial rotary). Positions count from 0 at the first frame (encoder) or token (decoder).
struct RotaryEmbedding: Sendable {
    /// `fᵢ`, one per pair (Moonshine base: 16, `10000^(−i/16)`, read from the graph).
    let inverseFrequencies: [Float]

    /// How many of a head's values turn.
    var dimensions: Int { 2 * inverseFrequencies.count }

    /// The cosines and sines of positions `first ..< first + count`, `[count][pairs][cos, sin]`, into `table`
    /// (`count · dimensions` floats). Angles are `Float(p) · fᵢ` in float32, as the graph computes them.
    func fillTable(_ table: UnsafeMutablePointer<Float>, positions first: Int, count: Int) {
        let pairs = inverseFrequencies.count
        for row in 0..<count {
            let position = Float(first + row)
            for i in 0..<pairs {
                let angle = position * inverseFrequencies[i]
                table[(row * pairs + i) * 2] = cos(angle)
                table[(row * pairs + i) * 2 + 1] = sin(angle)
            }
        }
    }

    /// Turns, in place, each of `rows` rows of `x` (`stride` floats apart, `heads` heads of `headDim` side by side),
    /// row r by the angles of `table`'s row r (from `fillTable`).
    func rotate(_ x: UnsafeMutablePointer<Float>, rows: Int, stride: Int, heads: Int, headDim: Int,
                table: UnsafePointer<Float>) {
        let pairs = inverseFrequencies.count
        for row in 0..<rows {
            let angles = table + row * pairs * 2
            for head in 0..<heads {
                let h = x + row * stride + head * headDim
                for i in 0..<pairs {
                    let c = angles[2 * i], s = angles[2 * i + 1]
                    let even = h[2 * i], odd = h[2 * i + 1]
                    h[2 * i] = even * c - odd * s
                    h[2 * i + 1] = odd * c + even * s
                }
            }
        }
    }
}
