import Foundation

/// Moonshine's encoder over a clip of 16 kHz audio as it is, without padding: its cost grows with the clip's length.
/// Output `[frames, d]`, about 41.5 frames a second (`frames(samples:)`).
final class MoonshineEncoder {
    let weights: MoonshineWeights
    let parallel: Parallel
    private let columns = Buffer(), stem = Buffer(), hidden = Buffer(), normed = Buffer()
    private let query = Buffer(), key = Buffer(), value = Buffer(), context = Buffer(), scores = Buffer()
    private let angles = Buffer(), projected = Buffer(), output = Buffer(), scratch = Buffer()

    /// conv1's kernel (taps over raw samples).
    var kernel: Int { weights.conv1.shape[1] }

    init(weights: MoonshineWeights, parallel: Parallel) {
        self.weights = weights
        self.parallel = parallel
    }

    /// The encoder's output frames for `samples` samples: conv1 (stride 64), conv2 (kernel 7, stride 3), conv3
    /// (kernel 3, stride 2), none padded; 0 when the clip is too short for one (under 56 ms).
    func frames(samples: Int) -> Int {
        let first = samples >= kernel ? (samples - kernel) / weights.conv1Stride + 1 : 0
        let second = first >= 7 ? (first - 7) / 3 + 1 : 0
        return second >= 3 ? (second - 3) / 2 + 1 : 0
    }

    /// Encodes `samples`; the result (`[frames(samples:), d]`) stays valid until the next call.
    func encode(_ samples: UnsafeBufferPointer<Float>) -> UnsafePointer<Float> {
        let d = weights.modelWidth, heads = MoonshineWeights.heads, headDim = weights.headDim
        let frames = frames(samples: samples.count)
        precondition(frames > 0, "MoonshineEncoder: a clip shorter than one frame")
        let x = hidden.reserve(frames * d)
        embed(samples, into: x, frames: frames)

        let table = angles.reserve(frames * weights.rotary.dimensions)
        weights.rotary.fillTable(table, positions: 0, count: frames)
        for layer in weights.encoderLayers {
            let a = layer.attention
            let n = normed.reserve(frames * d)
            Vector.layerNorm(x, rows: frames, columns: d, gamma: a.norm, beta: weights.zeros, into: n, parallel: parallel)
            let q = query.reserve(frames * d), k = key.reserve(frames * d), v = value.reserve(frames * d)
            a.query.apply(n, rows: frames, into: q, scratch: scratch, parallel: parallel)
            a.key.apply(n, rows: frames, into: k, scratch: scratch, parallel: parallel)
            a.value.apply(n, rows: frames, into: v, scratch: scratch, parallel: parallel)
            weights.rotary.rotate(q, rows: frames, stride: d, heads: heads, headDim: headDim, table: table)
            weights.rotary.rotate(k, rows: frames, stride: d, heads: heads, headDim: headDim, table: table)
            let c = context.reserve(frames * d)
            Attention.attend(query: q, queryStride: d, rows: frames, key: k, keyStride: d, value: v, valueStride: d,
                             length: frames, heads: heads, headDim: headDim, output: c, outputStride: d,
                             scores: scores, parallel: parallel)
            a.output.apply(c, rows: frames, into: x, accumulate: true, scratch: scratch, parallel: parallel)
            FeedForward.apply(layer.feedForward, to: x, rows: frames, normed: normed, hidden: projected,
                              scratch: scratch, parallel: parallel)
        }
        let y = output.reserve(frames * d)
        Vector.layerNorm(x, rows: frames, columns: d, gamma: weights.encoderNorm, beta: weights.zeros, into: y,
                         parallel: parallel)
        return UnsafePointer(y)
    }

    /// The convolutional stem into `x[frames, d]` (time-major): conv1 as one product over the clip's windows of
    /// samples, tanh, the one-group norm, then conv2 and conv3 as one product per tap (a tap's input rows are every
    /// third, then every second, row of the layer below), GELU after each.
    private func embed(_ samples: UnsafeBufferPointer<Float>, into x: UnsafeMutablePointer<Float>, frames: Int) {
        let d = weights.modelWidth, stride = weights.conv1Stride, taps = kernel
        let first = (samples.count - taps) / stride + 1
        let second = (first - 7) / 3 + 1
        let windows = columns.reserve(first * taps)
        for t in 0..<first {
            (windows + t * taps).update(from: samples.baseAddress! + t * stride, count: taps)
        }
        let h1 = stem.reserve(first * d + second * 2 * d)
        BLAS.gemm(m: first, n: d, k: taps, a: windows, lda: taps, b: weights.conv1.pointer, ldb: taps, transposeB: true,
                  c: h1, ldc: d, parallel: parallel)
        Self.tanh(h1, count: first * d)
        groupNorm(h1, rows: first, columns: d)

        let h2 = h1 + first * d
        convolve(h1, inputWidth: d, stride: 3, kernel: weights.conv2, bias: weights.conv2Bias, rows: second, into: h2)
        convolve(h2, inputWidth: 2 * d, stride: 2, kernel: weights.conv3, bias: weights.conv3Bias, rows: frames, into: x)
    }

    /// `y[r] = GELU(bias + Σₜ kernel[t] · x[stride · r + t])` for `rows` output rows.
    private func convolve(_ x: UnsafePointer<Float>, inputWidth: Int, stride: Int, kernel: Tensor, bias: Tensor,
                          rows: Int, into y: UnsafeMutablePointer<Float>) {
        let taps = kernel.shape[0], outputs = kernel.shape[1]
        for t in 0..<taps {
            BLAS.gemm(m: rows, n: outputs, k: inputWidth, a: x + t * inputWidth, lda: stride * inputWidth,
                      b: kernel.pointer + t * outputs * inputWidth, ldb: inputWidth, transposeB: true,
                      c: y, ldc: outputs, beta: t == 0 ? 0 : 1, parallel: parallel)
        }
        Vector.addRows(bias.pointer, to: y, rows: rows, columns: outputs)
        parallel.forEachSlice(of: rows, minimumSlice: 16) { _, slice in
            Vector.gelu(y + slice.lowerBound * outputs, count: slice.count * outputs)
        }
    }

    /// Group norm with one group: every value of `x` normalised by the mean and variance of all of them, then
    /// scaled and shifted per channel (column).
    private func groupNorm(_ x: UnsafeMutablePointer<Float>, rows: Int, columns: Int) {
        let count = rows * columns
        var sum = 0.0
        for i in 0..<count { sum += Double(x[i]) }
        let mean = sum / Double(count)
        var squares = 0.0
        for i in 0..<count {
            let centred = Double(x[i]) - mean
            squares += centred * centred
        }
        let inverse = Float(1 / (squares / Double(count) + 1e-5).squareRoot())
        let m = Float(mean), gamma = weights.groupNormGamma.pointer, beta = weights.groupNormBeta.pointer
        for r in 0..<rows {
            let row = x + r * columns
            for c in 0..<columns { row[c] = (row[c] - m) * inverse * gamma[c] + beta[c] }
        }
    }

    /// In place tanh, `1 − 2 / (e^{2x} + 1)`, 16 lanes at a time.
    private static func tanh(_ x: UnsafeMutablePointer<Float>, count: Int) {
        var i = 0
        while i + 16 <= count {
            let v = Vector.load(x + i)
            Vector.store(1 - 2 / (FastMath.exp(v + v) + 1), x + i)
            i += 16
        }
        while i < count {
            x[i] = Foundation.tanh(x[i])
            i += 1
        }
    }
}
