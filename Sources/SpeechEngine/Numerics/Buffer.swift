/// A growable scratch buffer of floats, reused across calls so hot loops never allocate.
/// Owned by one decoding session at a time (not shared across threads).
final class Buffer {
    private(set) var pointer: UnsafeMutablePointer<Float>
    private(set) var capacity: Int

    init(capacity: Int = 0) {
        self.capacity = max(capacity, 16)
        pointer = .allocate(capacity: self.capacity)
        pointer.initialize(repeating: 0, count: self.capacity)
    }

    deinit { pointer.deallocate() }

    /// Storage for at least `count` floats (contents undefined after growth).
    @inline(__always) func reserve(_ count: Int) -> UnsafeMutablePointer<Float> {
        if count > capacity {
            pointer.deallocate()
            capacity = count
            pointer = .allocate(capacity: count)
            pointer.initialize(repeating: 0, count: count)
        }
        return pointer
    }
}
