import Foundation

/// Groups speaker embeddings, one per analysis window, into speakers: agglomerative clustering with average linkage on
/// cosine similarity, stopped at a threshold or at the speaker count asked for, then clusters too small to be a
/// speaker folded into the nearest large one (as 3D-Speaker does). Average linkage because one speaker's windows are
/// spread (cosine 0.5–0.9 between them for CAM++) while the average over many pairs of two speakers' windows stays
/// low; single outlier windows then neither chain speakers together nor stand as speakers of their own.
///
/// The hierarchy is built with the nearest-neighbour chain over a matrix of cluster similarities updated by the
/// Lance–Williams formula for average linkage: O(n²) time and n² floats (100 MB for 5,000 windows). Average linkage
/// never merges below a merge it made earlier (it is reducible), so the chain gives the same hierarchy as merging the
/// most similar pair first, and one hierarchy answers every stopping rule. Longer inputs are clustered in chunks first
/// (`matrixLimit`). Deterministic: the same embeddings give the same labels; ties go to the lowest indices.
package struct SpeakerClustering: Sendable {
    /// Average cosine similarity below which two clusters are never merged (unless a speaker count asks for it). For
    /// CAM++ windows: one speaker's windows average 0.5–0.9 with each other, different speakers' −0.1–0.4. On the
    /// benchmark's conversations (BENCHMARKS.md, diarization) 0.6 split a speaker in two of nine, 0.4 merged two in
    /// four, 0.5 found every count.
    package static let defaultThreshold: Float = 0.5
    /// Clusters of fewer windows than this are folded into the nearest larger one: 4 windows (about 3 s of speech at
    /// one window every 0.6 s) is 3D-Speaker's choice.
    package static let defaultMinClusterSize = 4
    /// Windows clustered in one similarity matrix; more are first clustered in consecutive chunks (see `chunked`).
    package static let defaultMatrixLimit = 5_000

    /// Average similarity below which clusters stay apart.
    package var threshold: Float
    /// The exact number of speakers, when known; overrides `threshold`, `minSpeakers` and `maxSpeakers`.
    package var speakers: Int?
    /// At least this many speakers.
    package var minSpeakers: Int
    /// At most this many speakers.
    package var maxSpeakers: Int?
    /// Clusters smaller than this are folded into the nearest larger cluster, unless that would leave fewer speakers
    /// than `speakers` or `minSpeakers`.
    package var minClusterSize: Int
    /// Most windows clustered in one similarity matrix (n² floats).
    package var matrixLimit: Int

    package init(threshold: Float = Self.defaultThreshold, speakers: Int? = nil, minSpeakers: Int = 1,
                 maxSpeakers: Int? = nil, minClusterSize: Int = Self.defaultMinClusterSize,
                 matrixLimit: Int = Self.defaultMatrixLimit) {
        self.threshold = threshold
        self.speakers = speakers
        self.minSpeakers = minSpeakers
        self.maxSpeakers = maxSpeakers
        self.minClusterSize = minClusterSize
        self.matrixLimit = matrixLimit
    }

    /// A speaker label per window, and whether a requested speaker count could be met.
    package struct Result: Sendable, Equatable {
        /// One label per window, from 0, numbered in order of first appearance.
        package var labels: [Int]
        /// Distinct labels.
        package var speakerCount: Int
        /// Speakers asked for (`speakers`, or `minSpeakers` above 1) that the windows could not give: more speakers
        /// than windows. nil when the request was met or nothing was asked.
        package var shortfall: Int?
    }

    /// Labels the `embeddings.count / dimension` windows of `embeddings` (row after row). Any number of windows works:
    /// none gives no labels, one gives `[0]`. Embeddings that are zero or not finite count as unlike every other.
    package func labels(embeddings: [Float], dimension: Int) -> Result {
        precondition(dimension > 0 && embeddings.count % dimension == 0, "embeddings must be whole rows of dimension")
        let n = embeddings.count / dimension
        let requested = speakers.map { max(1, $0) } ?? (minSpeakers > 1 ? minSpeakers : nil)
        let shortfall = requested.flatMap { $0 > n ? $0 - n : nil }
        guard n > 0 else { return Result(labels: [], speakerCount: 0, shortfall: shortfall) }
        let unit = Self.normalized(embeddings, dimension: dimension)
        let clusters = n > max(matrixLimit, 2) ? chunked(unit, count: n, dimension: dimension)
            : cut(Hierarchy(units: unit, count: n, dimension: dimension))
        let labels = Self.byFirstAppearance(fold(Self.byFirstAppearance(clusters), unit: unit, dimension: dimension))
        return Result(labels: labels, speakerCount: (labels.max() ?? -1) + 1, shortfall: shortfall)
    }

    /// The centroid nearest `embedding` by cosine similarity, and that similarity (0 against a zero vector); ties to the
    /// lowest index; nil without centroids. For labelling windows as they come (live), against earlier clusters.
    package static func assign(_ embedding: [Float], centroids: [[Float]]) -> (index: Int, similarity: Float)? {
        var best: (index: Int, similarity: Float)?
        let norm = Self.norm(embedding)
        for (index, centroid) in centroids.enumerated() {
            precondition(centroid.count == embedding.count, "a centroid of another dimension")
            let product = embedding.withUnsafeBufferPointer { e in
                centroid.withUnsafeBufferPointer { c in Self.dot(e.baseAddress, c.baseAddress, embedding.count) }
            }
            let scale = norm * Self.norm(centroid)
            var similarity = scale > 0 && scale.isFinite ? product / scale : 0
            if !similarity.isFinite { similarity = 0 }
            if best.map({ similarity > $0.similarity }) ?? true { best = (index, similarity) }
        }
        return best
    }

    /// Each label's centroid: the mean of its windows' unit-length embeddings, scaled to unit length; a zero vector for
    /// a label no window has. Labels below 0 are ignored.
    package static func centroids(embeddings: [Float], dimension: Int, labels: [Int]) -> [[Float]] {
        precondition(dimension > 0 && embeddings.count == labels.count * dimension, "one label per embedding row")
        let unit = normalized(embeddings, dimension: dimension)
        var sums = [[Float]](repeating: [Float](repeating: 0, count: dimension), count: (labels.max() ?? -1) + 1)
        for (row, label) in labels.enumerated() where label >= 0 {
            for k in 0..<dimension { sums[label][k] += unit[row * dimension + k] }
        }
        return sums.map { sum in
            let length = norm(sum)
            return length > 0 && length.isFinite ? sum.map { $0 / length } : sum
        }
    }

    // MARK: Choosing the number of clusters

    /// The cluster of each item of `hierarchy`, cut where the options say.
    private func cut(_ hierarchy: Hierarchy) -> [Int] {
        hierarchy.clusters(count: clusterCount(hierarchy))
    }

    /// How many clusters to cut `hierarchy` into: `speakers` when given, else the count at `threshold` brought within
    /// `minSpeakers...maxSpeakers`; never more than the items.
    private func clusterCount(_ hierarchy: Hierarchy) -> Int {
        var count: Int
        if let speakers {
            count = max(1, speakers)
        } else {
            let low = max(1, minSpeakers)
            count = max(hierarchy.count(atSimilarity: threshold), low)
            if let maxSpeakers { count = min(count, max(maxSpeakers, low)) }
        }
        return min(count, hierarchy.items)
    }

    /// Fewest speakers folding may leave.
    private func fewestSpeakers(windows: Int) -> Int {
        min(windows, max(1, speakers ?? minSpeakers))
    }

    // MARK: Folding small clusters

    /// Moves each window of a cluster smaller than `minClusterSize` to the large cluster whose centroid it is most
    /// similar to (window by window, as 3D-Speaker does: a small cluster may hold strays of several speakers). When
    /// fewer large clusters remain than the speakers asked for, the biggest small ones (the first appearing among
    /// equals) count as large; with none large the biggest one is, so speech too short to tell speakers apart is one
    /// speaker.
    private func fold(_ labels: [Int], unit: [Float], dimension: Int) -> [Int] {
        let count = (labels.max() ?? -1) + 1
        var sizes = [Int](repeating: 0, count: count)
        for label in labels { sizes[label] += 1 }
        var major = sizes.map { $0 >= minClusterSize }
        let wanted = max(1, min(fewestSpeakers(windows: labels.count), count))
        let promoted = (0..<count).filter { !major[$0] }
            .sorted { sizes[$0] > sizes[$1] || (sizes[$0] == sizes[$1] && $0 < $1) }
        for label in promoted.prefix(max(0, wanted - major.filter { $0 }.count)) { major[label] = true }
        guard major.contains(false) else { return labels }

        let majors = (0..<count).filter { major[$0] }
        var centroids = [Float](repeating: 0, count: majors.count * dimension)
        let slot = Dictionary(uniqueKeysWithValues: majors.enumerated().map { ($1, $0) })
        for (row, label) in labels.enumerated() {
            guard let s = slot[label] else { continue }
            for k in 0..<dimension { centroids[s * dimension + k] += unit[row * dimension + k] }
        }
        let unitCentroids = Self.normalized(centroids, dimension: dimension)
        var folded = labels
        unit.withUnsafeBufferPointer { u in
            unitCentroids.withUnsafeBufferPointer { c in
                for (row, label) in labels.enumerated() where !major[label] {
                    var best = 0, bestSimilarity = -Float.infinity
                    for s in 0..<majors.count {
                        let similarity = Self.dot(u.baseAddress.map { $0 + row * dimension },
                                                  c.baseAddress.map { $0 + s * dimension }, dimension)
                        if similarity > bestSimilarity { bestSimilarity = similarity; best = s }
                    }
                    folded[row] = majors[best]
                }
            }
        }
        return folded
    }

    // MARK: Long inputs

    /// More windows than `matrixLimit`: each run of `matrixLimit / 2` consecutive windows is clustered on its own and
    /// cut at `threshold`, or further when that leaves more clusters than its share of `matrixLimit`; never below the
    /// speakers asked for. The resulting groups are then clustered together, starting from their exact average
    /// similarities (for unit vectors the mean cosine between two groups is the dot product of their sums over the
    /// product of their sizes). The one approximation: windows grouped in a chunk stay together.
    private func chunked(_ unit: [Float], count n: Int, dimension: Int) -> [Int] {
        let chunk = max(2, matrixLimit / 2)
        let keep = max(1, speakers ?? minSpeakers)
        var group = [Int](repeating: 0, count: n)
        var groups = 0
        var start = 0
        while start < n {
            let end = min(n, start + chunk)
            let length = end - start
            let hierarchy = unit.withUnsafeBufferPointer { u in
                Hierarchy(units: Array(u[(start * dimension)..<(end * dimension)]), count: length, dimension: dimension)
            }
            let share = max(1, length * matrixLimit / n)
            let clusters = max(min(hierarchy.count(atSimilarity: threshold), share), min(length, keep))
            let labels = Self.byFirstAppearance(hierarchy.clusters(count: clusters))
            for (offset, label) in labels.enumerated() { group[start + offset] = groups + label }
            groups += (labels.max() ?? -1) + 1
            start = end
        }
        var sums = [Float](repeating: 0, count: groups * dimension)
        var sizes = [Float](repeating: 0, count: groups)
        for row in 0..<n {
            sizes[group[row]] += 1
            for k in 0..<dimension { sums[group[row] * dimension + k] += unit[row * dimension + k] }
        }
        let top = cut(Hierarchy(sums: sums, sizes: sizes, dimension: dimension))
        return group.map { top[$0] }
    }

    // MARK: Vectors

    /// Rows scaled to unit length; a zero row, or one with a value that is not finite, becomes zeros.
    static func normalized(_ embeddings: [Float], dimension: Int) -> [Float] {
        var unit = embeddings
        unit.withUnsafeMutableBufferPointer { u in
            for row in 0..<(u.count / dimension) {
                let slice = UnsafeMutableBufferPointer(rebasing: u[(row * dimension)..<((row + 1) * dimension)])
                var squares = 0.0
                for x in slice { squares += Double(x) * Double(x) }
                let length = squares.squareRoot()
                if length > 0 && length.isFinite {
                    let scale = Float(1 / length)
                    for k in slice.indices { slice[k] *= scale }
                } else {
                    for k in slice.indices { slice[k] = 0 }
                }
            }
        }
        return unit
    }

    /// Labels renumbered from 0 in order of first appearance.
    static func byFirstAppearance(_ labels: [Int]) -> [Int] {
        var renamed: [Int: Int] = [:]
        return labels.map { label in
            if let name = renamed[label] { return name }
            let name = renamed.count
            renamed[label] = name
            return name
        }
    }

    static func norm(_ vector: [Float]) -> Float {
        vector.withUnsafeBufferPointer { norm($0) }
    }

    private static func norm(_ vector: UnsafeBufferPointer<Float>) -> Float {
        var squares = 0.0
        for x in vector { squares += Double(x) * Double(x) }
        let length = Float(squares.squareRoot())
        return length.isFinite ? length : 0
    }

    /// The dot product of two vectors of one length.
    static func dot(_ a: [Float], _ b: [Float]) -> Float {
        precondition(a.count == b.count, "vectors of different lengths")
        return a.withUnsafeBufferPointer { a in b.withUnsafeBufferPointer { b in dot(a.baseAddress, b.baseAddress, a.count) } }
    }

    /// The dot product of `count` floats at `a` and `b` (0 when either is absent). Eight running sums: the compiler
    /// vectorizes them, and unlike `SIMD8` they stay fast in debug builds (tests).
    @inline(__always)
    static func dot(_ a: UnsafePointer<Float>?, _ b: UnsafePointer<Float>?, _ count: Int) -> Float {
        guard let a, let b else { return 0 }
        var s0: Float = 0, s1: Float = 0, s2: Float = 0, s3: Float = 0
        var s4: Float = 0, s5: Float = 0, s6: Float = 0, s7: Float = 0
        var k = 0
        while k + 8 <= count {
            s0 += a[k] * b[k]
            s1 += a[k + 1] * b[k + 1]
            s2 += a[k + 2] * b[k + 2]
            s3 += a[k + 3] * b[k + 3]
            s4 += a[k + 4] * b[k + 4]
            s5 += a[k + 5] * b[k + 5]
            s6 += a[k + 6] * b[k + 6]
            s7 += a[k + 7] * b[k + 7]
            k += 8
        }
        while k < count {
            s0 += a[k] * b[k]
            k += 1
        }
        return ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))
    }
}

/// The average-linkage hierarchy of a set of items: the merges in order, most similar first, each with the average
/// similarity at which it happened.
private struct Hierarchy {
    /// Items clustered.
    let items: Int
    /// Merges in order: the clusters holding items `a` and `b` join at average similarity `similarity`
    /// (non-increasing along the list).
    private(set) var merges: [(a: Int, b: Int, similarity: Float)] = []

    /// Items are `count` unit vectors.
    init(units: [Float], count: Int, dimension: Int) {
        var matrix = Self.similarities(units, count: count, dimension: dimension, scales: nil)
        self.init(matrix: &matrix, sizes: [Float](repeating: 1, count: count))
    }

    /// Items are groups given by the sums of their members' unit vectors and their sizes: they start apart at the
    /// average similarity between their members.
    init(sums: [Float], sizes: [Float], dimension: Int) {
        var matrix = Self.similarities(sums, count: sizes.count, dimension: dimension, scales: sizes.map { 1 / $0 })
        self.init(matrix: &matrix, sizes: sizes)
    }

    /// The `count × count` dot products of `vectors`' rows, each times the rows' `scales`, −∞ on the diagonal. Computed
    /// in square tiles, each product once and written to both halves while the tile is in cache.
    private static func similarities(_ vectors: [Float], count: Int, dimension: Int, scales: [Float]?) -> [Float] {
        var matrix = [Float](repeating: 0, count: count * count)
        let tile = 32
        matrix.withUnsafeMutableBufferPointer { m in
            vectors.withUnsafeBufferPointer { v in
                guard let m = m.baseAddress, let v = v.baseAddress else { return }
                for rows in stride(from: 0, to: count, by: tile) {
                    for columns in stride(from: rows, to: count, by: tile) {
                        for i in rows..<min(rows + tile, count) {
                            for j in max(columns, i + 1)..<max(max(columns, i + 1), min(columns + tile, count)) {
                                var s = SpeakerClustering.dot(v + i * dimension, v + j * dimension, dimension)
                                if let scales { s *= scales[i] * scales[j] }
                                m[i * count + j] = s
                                m[j * count + i] = s
                            }
                        }
                    }
                    for i in rows..<min(rows + tile, count) { m[i * count + i] = -.infinity }
                }
            }
        }
        return matrix
    }

    /// The nearest-neighbour chain over `matrix` (items × items similarities, −∞ on the diagonal; overwritten): follow
    /// each cluster's most similar one until two are each other's most similar, merge those, go on from the chain left.
    /// A merged cluster's similarity to any other is the size-weighted mean of its two parts' (Lance–Williams for
    /// average linkage); retired clusters read −∞, so a row's maximum is a plain scan.
    private init(matrix: inout [Float], sizes: [Float]) {
        let n = sizes.count
        items = n
        guard n > 1 else { return }
        var size = sizes
        // The similarity each cluster was formed at: a merge is recorded no higher than its parts', so rounding cannot
        // put a merge before one it contains.
        var formed = [Float](repeating: .infinity, count: n)
        // Clusters not merged into another, in increasing order: only their rows are read again.
        var active = Array(0..<n)
        var chain: [Int] = []
        chain.reserveCapacity(n)
        var done: [(a: Int, b: Int, similarity: Float)] = []
        done.reserveCapacity(n - 1)
        matrix.withUnsafeMutableBufferPointer { buffer in
            guard let m = buffer.baseAddress else { return }
            while active.count > 1 {
                if chain.isEmpty { chain.append(active[0]) }
                let a = chain[chain.count - 1]
                let row = m + a * n
                var best = -1, bestSimilarity = -Float.infinity
                for j in 0..<n where row[j] > bestSimilarity {
                    bestSimilarity = row[j]
                    best = j
                }
                guard best >= 0 else { break }
                // Ties go to the cluster the chain came from, so the chain always ends.
                if chain.count >= 2 && row[chain[chain.count - 2]] >= bestSimilarity {
                    best = chain[chain.count - 2]
                } else {
                    chain.append(best)
                    continue
                }
                chain.removeLast(2)
                let keep = min(a, best), gone = max(a, best)
                let similarity = min(bestSimilarity, formed[a], formed[best])
                done.append((keep, gone, similarity))
                let total = size[a] + size[best]
                let wa = size[a] / total, wb = size[best] / total
                let ra = m + a * n, rb = m + best * n, rk = m + keep * n
                // −∞ (retired clusters, the two merged) stays −∞: both weights are positive.
                for j in 0..<n { rk[j] = wa * ra[j] + wb * rb[j] }
                rk[keep] = -.infinity
                rk[gone] = -.infinity
                for j in active {
                    m[j * n + keep] = rk[j]
                    m[j * n + gone] = -.infinity
                }
                size[keep] = total
                formed[keep] = similarity
                if let index = Self.position(of: gone, in: active) { active.remove(at: index) }
            }
        }
        // Merges in order of similarity; equal ones in the order made, which puts each after those it contains.
        merges = done.enumerated().sorted {
            $0.element.similarity > $1.element.similarity
                || ($0.element.similarity == $1.element.similarity && $0.offset < $1.offset)
        }.map(\.element)
    }

    /// Where `value` is in the increasing `array`.
    private static func position(of value: Int, in array: [Int]) -> Int? {
        var low = 0, high = array.count
        while low < high {
            let middle = (low + high) / 2
            if array[middle] < value { low = middle + 1 } else { high = middle }
        }
        return low < array.count && array[low] == value ? low : nil
    }

    /// Clusters left once every merge at `threshold` or above is made.
    func count(atSimilarity threshold: Float) -> Int {
        items - merges.prefix { $0.similarity >= threshold }.count
    }

    /// The cluster of each item when the hierarchy is cut into `count` clusters (or as few as its merges allow), named
    /// by one item of each.
    func clusters(count: Int) -> [Int] {
        var parent = Array(0..<items)
        func root(_ item: Int) -> Int {
            var item = item
            while parent[item] != item {
                parent[item] = parent[parent[item]]
                item = parent[item]
            }
            return item
        }
        for merge in merges.prefix(max(0, items - count)) {
            let a = root(merge.a), b = root(merge.b)
            if a != b { parent[max(a, b)] = min(a, b) }
        }
        return (0..<items).map(root)
    }
}
