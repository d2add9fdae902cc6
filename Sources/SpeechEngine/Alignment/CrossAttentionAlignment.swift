/// Token-to-time alignment from the decoder's cross-attention on the model's alignment heads:
/// softmax over the window's content frames, standardise each frame across tokens, median filter
/// along time, average the heads, then dynamic time warping (CTranslate2's `align`).
enum CrossAttentionAlignment {
    struct Result {
        /// `(text index, time index)` pairs of the warping path (time in 20 ms encoder frames).
        var path: [(row: Int, column: Int)]
        /// Probability of each text token given the ones before it.
        var tokenProbabilities: [Double]
    }

    static func align(decoder: TextDecoder, sotSequence: [Int], noTimestamps: Int, eot: Int, textTokens: [Int],
                      numFrames: Int, alignmentHeads: [[Int]], medianFilterWidth: Int = 7) -> Result {
        let input = sotSequence + [noTimestamps] + textTokens + [eot]
        let outputs = Array(input.dropFirst()) + [0]
        let tokens = input.count
        let frames = max(1, min(numFrames / 2, decoder.cache.memoryCount))
        let memoryLength = decoder.cache.memoryCount
        let heads = alignmentHeads.filter { $0.count == 2 && $0[0] < decoder.weights.dimensions.decoderLayers
                                            && $0[1] < decoder.weights.dimensions.decoderHeads }
        var weights = [[Float]](repeating: [], count: heads.count)   // per head: tokens × frames
        let logits = decoder.forward(tokens: input, start: 0, outputRows: Array(0..<tokens)) { layer, head, scores in
            for (h, pair) in heads.enumerated() where pair[0] == layer && pair[1] == head {
                var w = [Float](repeating: 0, count: tokens * frames)
                for t in 0..<tokens {
                    for f in 0..<frames { w[t * frames + f] = scores[t * memoryLength + f] }
                }
                weights[h] = w
            }
        }
        // Probabilities of each next token among text tokens only.
        let vocabulary = decoder.weights.dimensions.vocabularySize
        var probabilities: [Double] = []
        let offset = sotSequence.count
        for t in 0..<textTokens.count {
            let row = logits + (offset + t) * vocabulary
            let normalizer = Vector.logSumExp(row, count: eot)
            probabilities.append(libmExp(Double(row[outputs[offset + t]] - normalizer)))
        }
        let rows = tokens - offset - 1
        return Result(path: path(headScores: weights, tokens: tokens, frames: frames, rows: offset..<(offset + rows),
                                 medianFilterWidth: medianFilterWidth),
                      tokenProbabilities: probabilities)
    }

    /// The warping path of `rows` (token rows) over `frames` from raw attention scores, one `[tokens × frames]` matrix
    /// per head: softmax over frames, standardise each frame across all tokens, median filter along time, mean over
    /// the heads, then dynamic time warping of the rows asked for (row indices from `rows.lowerBound`).
    static func path(headScores: [[Float]], tokens: Int, frames: Int, rows: Range<Int>,
                     medianFilterWidth: Int = 7) -> [(row: Int, column: Int)] {
        var mean = [Float](repeating: 0, count: tokens * frames)
        for scores in headScores {
            var w = scores
            w.withUnsafeMutableBufferPointer { p in
                for t in 0..<tokens { Vector.softmax(p.baseAddress! + t * frames, count: frames) }
            }
            for f in 0..<frames {
                var sum: Float = 0
                for t in 0..<tokens { sum += w[t * frames + f] }
                let m = sum / Float(tokens)
                var squares: Float = 0
                for t in 0..<tokens { let d = w[t * frames + f] - m; squares += d * d }
                let sd = (squares / Float(tokens)).squareRoot()
                for t in 0..<tokens { w[t * frames + f] = (w[t * frames + f] - m) / sd }
            }
            let filtered = medianFilter(w, rows: tokens, columns: frames, width: medianFilterWidth)
            for i in 0..<mean.count { mean[i] += filtered[i] }
        }
        if !headScores.isEmpty { for i in 0..<mean.count { mean[i] /= Float(headScores.count) } }
        let matrix = Array(mean[(rows.lowerBound * frames)..<(rows.upperBound * frames)])
        return DynamicTimeWarping.path(matrix, rows: rows.count, columns: frames)
    }

    /// Median over a sliding window along each row, reflecting at the edges. It runs over every token and frame of
    /// each word-timed window: Whisper's width of 7 goes through a sorting network on eight columns at a time; the
    /// edges (and other widths) sort each window in place on the stack.
    static func medianFilter(_ x: [Float], rows: Int, columns: Int, width: Int) -> [Float] {
        let half = width / 2
        guard columns > half else { return x }
        var out = x
        x.withUnsafeBufferPointer { input in
            out.withUnsafeMutableBufferPointer { output in
                withUnsafeTemporaryAllocation(of: Float.self, capacity: width) { window in
                    for r in 0..<rows {
                        let row = input.baseAddress! + r * columns, target = output.baseAddress! + r * columns
                        var j = 0
                        while j < columns {
                            if width == 7 && j >= half && j + 8 <= columns - half {
                                UnsafeMutableRawPointer(target + j)
                                    .storeBytes(of: median7(row + j - half), as: SIMD8<Float>.self)
                                j += 8
                            } else {
                                target[j] = sortedMiddle(row, columns: columns, at: j, width: width,
                                                         window: window.baseAddress!)
                                j += 1
                            }
                        }
                    }
                }
            }
        }
        return out
    }

    /// The medians of the seven-column windows starting at `first ..< first + 8`: a sorting network of 16
    /// comparators (checked on every 0-1 input), lane-wise.
    @inline(__always) private static func median7(_ first: UnsafePointer<Float>) -> SIMD8<Float> {
        func load(_ k: Int) -> SIMD8<Float> { UnsafeRawPointer(first + k).loadUnaligned(as: SIMD8<Float>.self) }
        var v = (load(0), load(1), load(2), load(3), load(4), load(5), load(6))
        @inline(__always) func order(_ a: inout SIMD8<Float>, _ b: inout SIMD8<Float>) {
            let swap = b .< a
            let low = a.replacing(with: b, where: swap)
            b = b.replacing(with: a, where: swap)
            a = low
        }
        order(&v.0, &v.6); order(&v.2, &v.3); order(&v.4, &v.5)
        order(&v.0, &v.2); order(&v.1, &v.4); order(&v.3, &v.6)
        order(&v.0, &v.1); order(&v.2, &v.5); order(&v.3, &v.4)
        order(&v.1, &v.2); order(&v.4, &v.6)
        order(&v.2, &v.3); order(&v.4, &v.5)
        order(&v.1, &v.2); order(&v.3, &v.4); order(&v.5, &v.6)
        return v.3
    }

    /// The median of the `width` values around column `j` of `row`, reflected at the edges, sorted in `window`.
    @inline(__always) private static func sortedMiddle(_ row: UnsafePointer<Float>, columns: Int, at j: Int, width: Int,
                                                       window: UnsafeMutablePointer<Float>) -> Float {
        let half = width / 2
        for k in 0..<width {
            var read = abs(j + k - half)
            if read >= columns { read = 2 * columns - read - 2 }
            // Insertion: the window stays sorted as it fills.
            let value = row[read]
            var slot = k
            while slot > 0 && value < window[slot - 1] {
                window[slot] = window[slot - 1]
                slot -= 1
            }
            window[slot] = value
        }
        return window[half]
    }
}
