/// Self-attention keys and values of every decoder layer for each beam, `[beam][position, d]`, plus
/// the cross-attention keys/values of the current window (computed once per window).
final class KeyValueCache {
    let layers: Int, width: Int, capacity: Int, maxBeams: Int
    /// Beams in use.
    private(set) var beams = 1
    /// Per layer: `maxBeams` slots of `capacity × d` keys, then the same for values.
    private let storage: [UnsafeMutablePointer<Float>]
    /// The storage slot of each beam (a permutation of the slots): reordering beams hands slots over and copies
    /// only where two new beams continue the same old one.
    private var slots: [Int]
    /// `reorder`'s working arrays, kept so a beam step allocates nothing.
    private var nextSlots: [Int], handedOver: [Bool], freeSlots: [Int]
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
        slots = Array(0..<maxBeams)
        nextSlots = slots
        handedOver = [Bool](repeating: false, count: maxBeams)
        freeSlots = []
        freeSlots.reserveCapacity(maxBeams)
        memory = (0..<layers).map { _ in .allocate(capacity: memoryLength * 2 * width) }
    }

    deinit {
        storage.forEach { $0.deallocate() }
        memory.forEach { $0.deallocate() }
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
        keys(layer: layer, slot: slots[beam])
    }

    @inline(__always) func values(layer: Int, beam: Int) -> UnsafeMutablePointer<Float> {
        values(layer: layer, slot: slots[beam])
    }

    @inline(__always) private func keys(layer: Int, slot: Int) -> UnsafeMutablePointer<Float> {
        storage[layer] + slot * capacity * width
    }

    @inline(__always) private func values(layer: Int, slot: Int) -> UnsafeMutablePointer<Float> {
        storage[layer] + (maxBeams + slot) * capacity * width
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

    /// Reorders beams: new beam i continues old beam `origins[i]` (first `length` positions). The first new beam to
    /// continue an old one takes over its slot; a second one gets a copy in a slot no new beam continues. Runs at
    /// every beam step: it works in the arrays kept for it, without allocating.
    func reorder(_ origins: [Int], length: Int) {
        precondition(origins.count <= maxBeams)
        for b in 0..<maxBeams { handedOver[b] = false; nextSlots[b] = -1 }
        for (b, origin) in origins.enumerated() where !handedOver[origin] {
            handedOver[origin] = true
            nextSlots[b] = slots[origin]
        }
        // Slots of old beams nobody continues (and of beams not in use) hold nothing needed.
        freeSlots.removeAll(keepingCapacity: true)
        for b in 0..<maxBeams where !handedOver[b] { freeSlots.append(slots[b]) }
        let n = length * width
        for (b, origin) in origins.enumerated() where nextSlots[b] < 0 {
            let slot = freeSlots.removeLast()
            for l in 0..<layers {
                keys(layer: l, slot: slot).update(from: keys(layer: l, beam: origin), count: n)
                values(layer: l, slot: slot).update(from: values(layer: l, beam: origin), count: n)
            }
            nextSlots[b] = slot
        }
        for b in origins.count..<maxBeams { nextSlots[b] = freeSlots.removeLast() }
        swap(&slots, &nextSlots)
        beams = origins.count
    }
}
