import Foundation

/// CAM++ (Wang et al., 2023; 3D-Speaker's `campplus` model): 80 log mel filter-bank features in, a 192-dimension
/// speaker embedding out. A front of 2-D residual convolutions over frequency and time (the "FCM"), a time-delay layer
/// halving the frame rate, three densely connected TDNN blocks whose layers gate their output by context-aware
/// masking (the mean of the whole input and of its 100-frame segments), statistics pooling (mean and standard
/// deviation over time) and a dense layer with batch norm and ReLU.
///
/// Time-major throughout: a sequence is `[frames × channels]`, the batch's sequences one after another, so every 1-D
/// convolution is one product over all of them (`BLAS.linear` on gathered taps); the front's 2-D convolutions run
/// item by item on channels-last images (`Convolution2D`). Batch norms after convolutions are
/// folded into them at load (`CAMPlusPlusWeights`).
package final class CAMPlusPlus: Sendable {
    let weights: CAMPlusPlusWeights
    static let channelLimit = 1024

    package init(url: URL) throws {
        weights = try CAMPlusPlusWeights(url: url)
    }

    package static var embeddingSize: Int { CAMPlusPlusWeights.embeddingSize }

    /// The embeddings of `count` feature matrices of `frames × 80` each, laid one after another in `features`;
    /// `[count × 192]`. Each is a function of its own features alone, whatever the batch and `threads`.
    package func embeddings(features: UnsafeBufferPointer<Float>, count: Int, frames: Int, threads: Int = 1) -> [Float] {
        precondition(features.count == count * frames * KaldiFilterBank.bins && frames >= 4)
        let parallel = Parallel(threads: threads)
        let steps = (frames - 1) / 2 + 1
        let rows = count * steps
        let sequence = UnsafeMutablePointer<Float>.allocate(capacity: rows * Self.channelLimit)
        defer { sequence.deallocate() }
        // The front, item by item on as many threads: each writes its own rows.
        let slices = parallel.sliceCount(of: count, minimumSlice: 1)
        let scratches = (0..<slices).map { _ in (Buffer(), Buffer(), Buffer(), Buffer(), Buffer()) }
        nonisolated(unsafe) let output = sequence
        parallel.forEachSlice(of: count, minimumSlice: 1) { slice, range in
            let scratch = scratches[slice]
            for item in range {
                front(features.baseAddress! + item * frames * KaldiFilterBank.bins, frames: frames,
                      into: output + item * steps * Self.channelLimit, scratch: scratch)
            }
        }
        return xvector(sequence, count: count, steps: steps, parallel: parallel)
    }

    // MARK: The convolutional front (FCM) and the first TDNN layer

    /// One item's features through the 2-D front and the time-delay layer: `steps` rows of 128 channels at `output`
    /// (leading dimension `channelLimit`).
    private func front(_ features: UnsafePointer<Float>, frames: Int, into output: UnsafeMutablePointer<Float>,
                       scratch: (Buffer, Buffer, Buffer, Buffer, Buffer)) {
        let m = 32
        var height = KaldiFilterBank.bins
        // The image `[height × frames × channels]`, one channel: the features transposed.
        let size = height * frames * m
        var image = scratch.0.reserve(size), spare = scratch.1.reserve(size), next = scratch.2.reserve(size)
        for t in 0..<frames { for f in 0..<height { image[f * frames + t] = features[t * height + f] } }
        let residual = scratch.3.reserve(size / 2)

        weights.stem.apply(image, height: height, width: frames, stride: 1, relu: true, into: spare, scratch: scratch.4)
        swap(&image, &spare)
        for block in weights.residualBlocks {
            let out = block.first.outputHeight(height, stride: block.stride)
            block.first.apply(image, height: height, width: frames, stride: block.stride, relu: true, into: spare,
                              scratch: scratch.4)
            var shortcut = UnsafePointer(image)
            if let projection = block.shortcut {
                projection.apply(image, height: height, width: frames, stride: block.stride, relu: false, into: residual,
                                 scratch: scratch.4)
                shortcut = UnsafePointer(residual)
            }
            block.second.apply(spare, height: out, width: frames, stride: 1, relu: false, into: next, scratch: scratch.4)
            Vector.add(shortcut, to: next, count: out * frames * m)
            relu(next, count: out * frames * m)
            swap(&image, &next)
            height = out
        }
        weights.headOutput.apply(image, height: height, width: frames, stride: 2, relu: true, into: spare, scratch: scratch.4)
        height = weights.headOutput.outputHeight(height, stride: 2)
        // `[frames × (channel · height + f)]`, as PyTorch flattens channels and frequency.
        let flat = image
        let width = m * height
        for t in 0..<frames {
            for f in 0..<height {
                let source = spare + (f * frames + t) * m
                for c in 0..<m { flat[t * width + c * height + f] = source[c] }
            }
        }
        // The time-delay layer: kernel 5, stride 2, padding 2.
        let steps = (frames - 1) / 2 + 1
        let taps = 5
        let cols = scratch.4.reserve(steps * taps * width)
        for step in 0..<steps {
            for tap in 0..<taps {
                let t = 2 * step + tap - 2
                let destination = cols + (step * taps + tap) * width
                if t >= 0 && t < frames { destination.update(from: flat + t * width, count: width) }
                else { destination.update(repeating: 0, count: width) }
            }
        }
        let tdnn = weights.tdnn
        let result = scratch.3.reserve(steps * tdnn.outputs)
        BLAS.linear(cols, rows: steps, weight: tdnn.weight, bias: tdnn.bias, into: result)
        relu(result, count: steps * tdnn.outputs)
        for step in 0..<steps { (output + step * Self.channelLimit).update(from: result + step * tdnn.outputs, count: tdnn.outputs) }
    }

    // MARK: The densely connected TDNN blocks, pooling and the embedding

    private func xvector(_ sequence: UnsafeMutablePointer<Float>, count: Int, steps: Int, parallel: Parallel) -> [Float] {
        let rows = count * steps, ld = Self.channelLimit
        let activated = Buffer(), bottleneck = Buffer(), taps = Buffer(), local = Buffer()
        var channels = weights.tdnn.outputs
        // The element-wise steps between products run on the same threads as the products, by rows or by items.
        let rowSlice = 64
        for block in weights.blocks {
            for layer in block.layers {
                let a = activated.reserve(rows * channels)
                parallel.forEachSlice(of: rows, minimumSlice: rowSlice) { _, r in
                    affineReLU(sequence + r.lowerBound * ld, ld: ld, rows: r.count, channels: channels, layer.normalization,
                               into: a + r.lowerBound * channels)
                }
                let b = CAMPlusPlusWeights.bottleneckChannels
                let h = bottleneck.reserve(rows * b)
                BLAS.linear(a, rows: rows, weight: layer.bottleneck.weight, bias: layer.bottleneck.bias, into: h, parallel: parallel)
                // Kernel 3 at the block's dilation, zero outside each item.
                let gathered = taps.reserve(rows * 3 * b)
                parallel.forEachSlice(of: count, minimumSlice: 1) { _, items in
                    relu(h + items.lowerBound * steps * b, count: items.count * steps * b)
                    for item in items {
                        for t in 0..<steps {
                            for tap in 0..<3 {
                                let source = t + (tap - 1) * block.dilation
                                let destination = gathered + ((item * steps + t) * 3 + tap) * b
                                if source >= 0 && source < steps { destination.update(from: h + (item * steps + source) * b, count: b) }
                                else { destination.update(repeating: 0, count: b) }
                            }
                        }
                    }
                }
                let growth = CAMPlusPlusWeights.growth
                let y = local.reserve(rows * growth)
                BLAS.linear(gathered, rows: rows, weight: layer.local.weight, bias: nil, into: y, parallel: parallel)
                parallel.forEachSlice(of: count, minimumSlice: 1) { _, items in
                    for item in items {
                        gate(y + item * steps * growth, context: h + item * steps * b, steps: steps, layer: layer)
                    }
                    for row in (items.lowerBound * steps)..<(items.upperBound * steps) {
                        (sequence + row * ld + channels).update(from: y + row * growth, count: growth)
                    }
                }
                channels += growth
            }
            let a = activated.reserve(rows * channels)
            parallel.forEachSlice(of: rows, minimumSlice: rowSlice) { _, r in
                affineReLU(sequence + r.lowerBound * ld, ld: ld, rows: r.count, channels: channels, block.transitNormalization,
                           into: a + r.lowerBound * channels)
            }
            let reduced = bottleneck.reserve(rows * block.transit.outputs)
            BLAS.linear(a, rows: rows, weight: block.transit.weight, bias: nil, into: reduced, parallel: parallel)
            channels = block.transit.outputs
            for row in 0..<rows { (sequence + row * ld).update(from: reduced + row * channels, count: channels) }
        }
        let a = activated.reserve(rows * channels)
        affineReLU(sequence, ld: ld, rows: rows, channels: channels, weights.outputNormalization, into: a)
        let size = CAMPlusPlusWeights.embeddingSize
        var embeddings = [Float](repeating: 0, count: count * size)
        var statistics = [Float](repeating: 0, count: 2 * channels)
        for item in 0..<count {
            let base = a + item * steps * channels
            for c in 0..<channels {
                var sum: Double = 0
                for t in 0..<steps { sum += Double(base[t * channels + c]) }
                let mean = sum / Double(steps)
                var squares: Double = 0
                for t in 0..<steps { let d = Double(base[t * channels + c]) - mean; squares += d * d }
                statistics[c] = Float(mean)
                statistics[channels + c] = steps > 1 ? Float((squares / Double(steps - 1)).squareRoot()) : 0.01
            }
            embeddings.withUnsafeMutableBufferPointer { out in
                let e = out.baseAddress! + item * size
                statistics.withUnsafeBufferPointer { s in
                    BLAS.gemv(m: size, n: 2 * channels, a: weights.dense.pointer, lda: 2 * channels, x: s.baseAddress!, y: e)
                }
                let norm = weights.denseNormalization
                for i in 0..<size { e[i] = Swift.max(0, e[i] * norm.scale.pointer[i] + norm.shift.pointer[i]) }
            }
        }
        return embeddings
    }

    /// Context-aware masking: `y` (`steps × 32`) times a sigmoid gate computed from the mean of `context`
    /// (`steps × 128`) over the whole sequence plus its mean over the 100-frame segment of each step.
    private func gate(_ y: UnsafeMutablePointer<Float>, context: UnsafePointer<Float>, steps: Int,
                      layer: CAMPlusPlusWeights.DenseLayer) {
        let b = CAMPlusPlusWeights.bottleneckChannels, growth = CAMPlusPlusWeights.growth, segment = 100
        withUnsafeTemporaryAllocation(of: Float.self, capacity: 2 * b + b / 2 + growth) { space in
            let whole = space.baseAddress!, pooled = whole + b, hidden = pooled + b, mask = hidden + b / 2
            /// `into[c] = Σ context[t, c]` over `range`, each channel summed in time order.
            func sum(_ range: Range<Int>, into: UnsafeMutablePointer<Float>) {
                for c in stride(from: 0, to: b, by: 16) {
                    var total = SIMD16<Float>(repeating: 0)
                    for t in range { total += Vector.load(context + t * b + c) }
                    Vector.store(total, into + c)
                }
            }
            sum(0..<steps, into: whole)
            for c in 0..<b { whole[c] /= Float(steps) }
            for start in stride(from: 0, to: steps, by: segment) {
                let end = Swift.min(steps, start + segment)
                sum(start..<end, into: pooled)
                for c in 0..<b { pooled[c] = whole[c] + pooled[c] / Float(end - start) }
                BLAS.gemv(m: b / 2, n: b, a: layer.contextDown.weight.pointer, lda: b, x: pooled, y: hidden)
                for i in 0..<(b / 2) { hidden[i] = Swift.max(0, hidden[i] + layer.contextDown.bias!.pointer[i]) }
                BLAS.gemv(m: growth, n: b / 2, a: layer.contextUp.weight.pointer, lda: b / 2, x: hidden, y: mask)
                for i in 0..<growth { mask[i] = 1 / (1 + Foundation.exp(-(mask[i] + layer.contextUp.bias!.pointer[i]))) }
                for t in start..<end { for c in 0..<growth { y[t * growth + c] *= mask[c] } }
            }
        }
    }

    // MARK: Element-wise

    private func relu(_ x: UnsafeMutablePointer<Float>, count: Int) {
        for i in 0..<count { x[i] = Swift.max(0, x[i]) }
    }

    /// `output[row] = max(0, x[row] · scale + shift)` over the first `channels` of rows `ld` apart.
    private func affineReLU(_ x: UnsafePointer<Float>, ld: Int, rows: Int, channels: Int,
                            _ affine: CAMPlusPlusWeights.Affine, into output: UnsafeMutablePointer<Float>) {
        let scale = affine.scale.pointer, shift = affine.shift.pointer
        for row in 0..<rows {
            let source = x + row * ld, destination = output + row * channels
            var c = 0
            while c + 16 <= channels {
                let v = Vector.load(source + c) * Vector.load(scale + c) + Vector.load(shift + c)
                Vector.store(v.replacing(with: 0, where: v .< 0), destination + c)
                c += 16
            }
            while c < channels { destination[c] = Swift.max(0, source[c] * scale[c] + shift[c]); c += 1 }
        }
    }
}
