import Testing
@testable import SpeechEngine

/// Beam reordering hands storage slots over instead of copying every beam: each new beam must still read exactly
/// the keys and values of the beam it continues, through any sequence of reorders.
@Suite struct KeyValueCacheTests {
    static let layers = 2, width = 4, capacity = 6, maxBeams = 5

    /// Writes `tag(beam, position)` into every key and value of `beams` beams' first `length` positions.
    static func fill(_ cache: KeyValueCache, beams: Int, length: Int, tag: (Int, Int) -> Float) {
        for l in 0..<layers {
            for b in 0..<beams {
                for p in 0..<length {
                    for i in 0..<width {
                        cache.keys(layer: l, beam: b)[p * width + i] = tag(b, p) + Float(l * 1_000 + i)
                        cache.values(layer: l, beam: b)[p * width + i] = -(tag(b, p) + Float(l * 1_000 + i))
                    }
                }
            }
        }
    }

    /// Every beam's first `length` positions, keys then values.
    static func contents(_ cache: KeyValueCache, beams: Int, length: Int) -> [[Float]] {
        (0..<beams).map { b in
            (0..<layers).flatMap { l in
                Array(UnsafeBufferPointer(start: cache.keys(layer: l, beam: b), count: length * width))
                    + Array(UnsafeBufferPointer(start: cache.values(layer: l, beam: b), count: length * width))
            }
        }
    }

    @Test("reordered beams read what the beams they continue held: permutations, repeats, fewer beams")
    func reorder() {
        let cache = KeyValueCache(layers: Self.layers, width: Self.width, heads: 2, capacity: Self.capacity,
                                  memoryLength: 4, maxBeams: Self.maxBeams)
        cache.expand(to: 5, length: 0)
        Self.fill(cache, beams: 5, length: 2) { b, p in Float(b * 100 + p) }
        var expected = Self.contents(cache, beams: 5, length: 2)
        let steps: [[Int]] = [[0, 1, 2, 3, 4], [4, 3, 2, 1, 0], [2, 2, 2, 0, 1], [1, 1, 0, 0, 4], [3, 3, 3, 3, 3],
                              [0, 2, 1], [2, 2, 0, 1, 1]]
        var length = 2
        for origins in steps {
            cache.reorder(origins, length: length)
            expected = origins.map { expected[$0] }
            #expect(Self.contents(cache, beams: origins.count, length: length) == expected, "after \(origins)")
            // The next step writes its own position in each beam, as the decoder does.
            for l in 0..<Self.layers {
                for b in origins.indices {
                    for i in 0..<Self.width {
                        cache.keys(layer: l, beam: b)[length * Self.width + i] = Float(length * 10 + b)
                        cache.values(layer: l, beam: b)[length * Self.width + i] = -Float(length * 10 + b)
                    }
                }
            }
            length = length + 1 == Self.capacity ? 2 : length + 1
            expected = Self.contents(cache, beams: origins.count, length: length)
        }
    }
}
