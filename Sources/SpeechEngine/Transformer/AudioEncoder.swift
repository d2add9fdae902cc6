/// Whisper's audio encoder: two convolutions with GELU, sinusoidal positions, pre-norm transformer
/// blocks, final layer norm. Input `[3000, melBins]` log-mel (time-major), output `[1500, d]`.
final class AudioEncoder {
    let weights: WhisperWeights
    let parallel: Parallel
    private let columns = Buffer(), hidden = Buffer(), normed = Buffer(), projected = Buffer()
    private let context = Buffer(), scores = Buffer(), output = Buffer(), scratch = Buffer()

    init(weights: WhisperWeights, parallel: Parallel) {
        self.weights = weights
        self.parallel = parallel
    }

    /// Encodes one 30 s window; the result stays valid until the next call. `positions` below `audioContext`
    /// encodes only the window's first `2 · positions` mel frames (whisper.cpp's `audio_ctx`): the output is then
    /// `[positions, d]`, at a fraction of the work (attention grows with the square of the length).
    func encode(_ mel: UnsafePointer<Float>, positions: Int? = nil) -> UnsafePointer<Float> {
        let dims = weights.dimensions
        let d = dims.modelWidth
        let frames = min(positions ?? dims.audioContext, dims.audioContext)
        let inFrames = min(2 * frames, LogMelSpectrogram.windowFrames)
        let x = hidden.reserve(frames * d)
        embed(mel, inFrames: inFrames, frames: frames, into: x)
        for layer in weights.encoderLayers {
            selfAttentionBlock(layer.attention, x, frames, d, heads: dims.encoderHeads)
            FeedForward.apply(layer.feedForward, to: x, rows: frames, normed: normed, hidden: projected, scratch: scratch,
                              parallel: parallel)
        }
        let y = output.reserve(frames * d)
        Vector.layerNorm(x, rows: frames, columns: d, gamma: weights.encoderNormGamma,
                         beta: weights.encoderNormBeta, into: y, parallel: parallel)
        return UnsafePointer(y)
    }

    /// Encodes `mels.count` full 30 s windows at once into `[mels.count · 1500, d]` (window b's rows from `b · 1500`),
    /// valid until the next call. The convolutions and attention run per window; the layer norms and the weight
    /// products (attention projections, feed-forward) run once over all windows' rows stacked. Each window's rows
    /// are bit-identical to `encode(_:)` of that window alone: every step computes each row from that row alone
    /// (the products' rows included, `EncoderBatchTests` checks it on this machine's kernels).
    func encode(batch mels: [UnsafePointer<Float>]) -> UnsafePointer<Float> {
        precondition(!mels.isEmpty, "AudioEncoder: empty batch")
        let dims = weights.dimensions
        let d = dims.modelWidth
        let frames = dims.audioContext, inFrames = LogMelSpectrogram.windowFrames
        let rows = mels.count * frames
        let x = hidden.reserve(rows * d)
        for (b, mel) in mels.enumerated() {
            embed(mel, inFrames: inFrames, frames: frames, into: x + b * frames * d)
        }
        for layer in weights.encoderLayers {
            selfAttentionBlock(layer.attention, x, rows, d, heads: dims.encoderHeads, window: frames)
            FeedForward.apply(layer.feedForward, to: x, rows: rows, normed: normed, hidden: projected, scratch: scratch,
                              parallel: parallel)
        }
        let y = output.reserve(rows * d)
        Vector.layerNorm(x, rows: rows, columns: d, gamma: weights.encoderNormGamma,
                         beta: weights.encoderNormBeta, into: y, parallel: parallel)
        return UnsafePointer(y)
    }

    /// One window's convolutional stem: its first `inFrames` mel frames through conv1 and conv2 (GELU after each),
    /// plus the positions, into `x[frames, d]`. Uses the `columns` and `projected` buffers.
    private func embed(_ mel: UnsafePointer<Float>, inFrames: Int, frames: Int, into x: UnsafeMutablePointer<Float>) {
        let d = weights.dimensions.modelWidth, mels = weights.dimensions.melBins
        // conv1 (kernel 3, padding 1) as im2col: cols[t, c·3 + j] = mel[t + j − 1, c].
        let cols = columns.reserve(inFrames * max(mels, d) * 3)
        for t in 0..<inFrames {
            let row = cols + t * mels * 3
            for j in 0..<3 {
                let source = t + j - 1
                if source < 0 || source >= inFrames {
                    for c in 0..<mels { row[c * 3 + j] = 0 }
                } else {
                    let m = mel + source * mels
                    for c in 0..<mels { row[c * 3 + j] = m[c] }
                }
            }
        }
        let h1 = projected.reserve(inFrames * d)
        weights.conv1.apply(cols, rows: inFrames, into: h1, scratch: scratch, parallel: parallel)
        gelu(h1, rows: inFrames, columns: d)
        // conv2 (kernel 3, stride 2, padding 1): cols[t, c·3 + j] = h1[2t + j − 1, c].
        for t in 0..<frames {
            let row = cols + t * d * 3
            for j in 0..<3 {
                let source = 2 * t + j - 1
                if source < 0 || source >= inFrames {
                    for c in 0..<d { row[c * 3 + j] = 0 }
                } else {
                    let m = h1 + source * d
                    for c in 0..<d { row[c * 3 + j] = m[c] }
                }
            }
        }
        weights.conv2.apply(cols, rows: frames, into: x, scratch: scratch, parallel: parallel)
        gelu(x, rows: frames, columns: d)
        Vector.add(weights.encoderPositions.pointer, to: x, count: frames * d)
    }

    /// `rows` rows of `window` frames each (one window: `window == rows`): the projections over all rows, attention
    /// within each window.
    private func selfAttentionBlock(_ w: AttentionWeights, _ x: UnsafeMutablePointer<Float>, _ rows: Int, _ d: Int,
                                    heads: Int, window: Int) {
        let n = normed.reserve(rows * d)
        Vector.layerNorm(x, rows: rows, columns: d, gamma: w.normGamma, beta: w.normBeta, into: n, parallel: parallel)
        let qkv = projected.reserve(rows * 3 * d)
        w.input.apply(n, rows: rows, into: qkv, scratch: scratch, parallel: parallel)
        let ctx = context.reserve(rows * d)
        var first = 0
        while first < rows {
            let q = qkv + first * 3 * d
            Attention.attend(query: q, queryStride: 3 * d, rows: window, key: q + d, keyStride: 3 * d,
                             value: q + 2 * d, valueStride: 3 * d, length: window, heads: heads, headDim: d / heads,
                             output: ctx + first * d, outputStride: d, scores: scores, parallel: parallel)
            first += window
        }
        w.output.apply(ctx, rows: rows, into: x, accumulate: true, scratch: scratch, parallel: parallel)
    }

    private func selfAttentionBlock(_ w: AttentionWeights, _ x: UnsafeMutablePointer<Float>, _ rows: Int, _ d: Int,
                                    heads: Int) {
        let n = normed.reserve(rows * d)
        Vector.layerNorm(x, rows: rows, columns: d, gamma: w.normGamma, beta: w.normBeta, into: n, parallel: parallel)
        let qkv = projected.reserve(rows * 3 * d)
        w.input.apply(n, rows: rows, into: qkv, scratch: scratch, parallel: parallel)
        let ctx = context.reserve(rows * d)
        Attention.attend(query: qkv, queryStride: 3 * d, rows: rows, key: qkv + d, keyStride: 3 * d,
                         value: qkv + 2 * d, valueStride: 3 * d, length: rows, heads: heads, headDim: d / heads,
                         output: ctx, outputStride: d, scores: scores, parallel: parallel)
        // x += ctx · Woᵀ + bo, accumulated by BLAS with beta = 1.
        w.output.apply(ctx, rows: rows, into: x, accumulate: true, scratch: scratch, parallel: parallel)
    }

    private func gelu(_ x: UnsafeMutablePointer<Float>, rows: Int, columns: Int) {
        parallel.forEachSlice(of: rows, minimumSlice: 64) { _, slice in
            Vector.gelu(x + slice.lowerBound * columns, count: slice.count * columns)
        }
    }
}
