/// Self-attention keys and values of every decoder layer for each beam, `[beam][position, d]`, plus
/// the cross-attention keys/values of the current window (computed once per window).
final class KeyValueCache {
    let layers: Int, width: Int, capacity: Int, maxBeams: Int
    /// Beams in use.
    private(set) var beams = 1
    /// Per layer: `beams × capacity × d` keys then the same for values.
    private let storage: [UnsafeMutablePointer<Float>]
    private let scratch: UnsafeMutablePointer<Float>
    /// Per layer: the encoder output projected to keys and values, each head's `[memoryLength, headDim]`
    /// block contiguous (keys of every head, then values): one token's cross-attention then streams each
    /// head's block in order instead of picking `headDim` floats out of every long row.
    private let memory: [UnsafeMutablePointer<Float>]
    let memoryLength: Int, headDim: Int
    /// Encoder positions the current window's memory holds (`memoryLength` but for a shortened encoding, such as
    /// language detection's over the speech alone).
    private(set) var memoryCount: Int
    /// Floats from one head's block of `memoryKeys`/`memoryValues` to the next's.
    var memoryHeadStride: Int { memoryLength * headDim }

    init(layers: Int, width: Int, heads: Int, capacity: Int, memoryLength: Int, maxBeams: Int) {
        self.layers = layers
        self.width = width
        headDim = width / heads
        self.capacity = capacity
        self.memoryLength = memoryLength
        memoryCount = memoryLength
        self.maxBeams = maxBeams
        storage = (0..<layers).map { _ in .allocate(capacity: 2 * maxBeams * capacity * width) }
        scratch = .allocate(capacity: maxBeams * capacity * width)
        memory = (0..<layers).map { _ in .allocate(capacity: memoryLength * 2 * width) }
    }

    deinit {
        storage.forEach { $0.deallocate() }
        memory.forEach { $0.deallocate() }
        scratch.deallocate()
    }

    /// Stores the projected encoder output `[count, 2d]` (keys | values in each row, `count` at most
    /// `memoryLength`) of `layer` as that layer's per-head blocks.
    func setMemory(layer: Int, projected: UnsafePointer<Float>, count: Int) {
        precondition(count > 0 && count <= memoryLength)
        memoryCount = count
        for block in 0..<(2 * width / headDim) {
            let target = memory[layer] + block * memoryHeadStride, source = projected + block * headDim
            for t in 0..<count {
                (target + t * headDim).update(from: source + t * 2 * width, count: headDim)
            }
        }
    }

    /// Head 0's cross-attention keys `[memoryLength, headDim]` of `layer`; head h's follow at `h · memoryHeadStride`.
    func memoryKeys(layer: Int) -> UnsafePointer<Float> { UnsafePointer(memory[layer]) }

    /// Head 0's cross-attention values of `layer`, laid out as `memoryKeys`.
    func memoryValues(layer: Int) -> UnsafePointer<Float> { UnsafePointer(memory[layer] + width * memoryLength) }

    @inline(__always) func keys(layer: Int, beam: Int) -> UnsafeMutablePointer<Float> {
        storage[layer] + beam * capacity * width
    }

    @inline(__always) func values(layer: Int, beam: Int) -> UnsafeMutablePointer<Float> {
        storage[layer] + (maxBeams + beam) * capacity * width
    }

    /// Uses `count` beams (at most `maxBeams`), each a copy of beam 0's first `length` positions.
    func expand(to count: Int, length: Int) {
        precondition(count <= maxBeams)
        beams = count
        for l in 0..<layers {
            for b in 1..<max(count, 1) {
                keys(layer: l, beam: b).update(from: keys(layer: l, beam: 0), count: length * width)
                values(layer: l, beam: b).update(from: values(layer: l, beam: 0), count: length * width)
            }
        }
    }

    /// Reorders beams: new beam i continues old beam `origins[i]` (first `length` positions).
    func reorder(_ origins: [Int], length: Int) {
        if origins.enumerated().allSatisfy({ $0.offset == $0.element }) { return }
        let n = length * width
        for l in 0..<layers {
            for keysNotValues in [true, false] {
                for b in 0..<beams {
                    let source = keysNotValues ? keys(layer: l, beam: b) : values(layer: l, beam: b)
                    (scratch + b * n).update(from: source, count: n)
                }
                for (b, origin) in origins.enumerated() {
                    let target = keysNotValues ? keys(layer: l, beam: b) : values(layer: l, beam: b)
                    target.update(from: scratch + origin * n, count: n)
                }
            }
        }
    }
}
