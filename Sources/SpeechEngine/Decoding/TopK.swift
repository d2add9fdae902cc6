/// The k best (score, flat index) pairs seen, for beam search.
struct TopK {
    struct Entry { var score: Float; var index: Int }
    let capacity: Int
    private var entries: [Entry] = []
    private var threshold = -Float.infinity

    init(capacity: Int) { self.capacity = capacity; entries.reserveCapacity(capacity + 1) }

    mutating func reset() { entries.removeAll(keepingCapacity: true); threshold = -.infinity }

    /// Considers `x[i] + offset` for each i, with flat index `base + i`.
    mutating func scan(_ x: UnsafePointer<Float>, count: Int, offset: Float, base: Int) {
        for i in 0..<count {
            let s = x[i] + offset
            guard s > threshold || (entries.count < capacity && s > -.infinity) else { continue }
            // Insert keeping descending order; ties keep the earlier index first.
            var j = entries.count
            while j > 0 && entries[j - 1].score < s { j -= 1 }
            entries.insert(Entry(score: s, index: base + i), at: j)
            if entries.count > capacity { entries.removeLast() }
            if entries.count == capacity { threshold = entries[capacity - 1].score }
        }
    }

    func sorted() -> [Entry] { entries }
}
