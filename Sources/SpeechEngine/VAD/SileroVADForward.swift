/// The Silero VAD forward pass over a batch of chunks: STFT magnitude, four convolutions with ReLU (per chunk,
/// so all chunks of a batch go through each layer in one BLAS product), then the LSTM cell chunk after chunk
/// (its input projection batched) and the sigmoid head.
///
/// Activations are time-major: row `b·T + t` holds the channels of chunk `b` at STFT frame `t`.
extension SileroVADWeights {
    /// Samples per chunk at 16 kHz.
    static let chunkLength = 512
    /// Samples of the previous chunk prepended to each chunk.
    static let contextLength = 64
    static let frameLength = 256, hop = 128, framesPerChunk = 4, bins = 129, hiddenSize = 128

    /// Runs `count` chunks whose `contextLength + chunkLength`-sample windows start at `windows + b·chunkLength`,
    /// updating the LSTM state `(h, c)` in place and writing one probability per chunk to `probabilities`.
    func run(windows: UnsafePointer<Float>, count: Int, h: UnsafeMutablePointer<Float>, c: UnsafeMutablePointer<Float>,
             scratch: SileroVADScratch, probabilities: UnsafeMutablePointer<Float>) {
        precondition(count <= scratch.maxChunks)
        let frames = count * Self.framesPerChunk
        let a = scratch.a, b = scratch.b

        // STFT frames [frames, 256] in `a`: the window reflect-padded by 64 on the right, hop 128.
        for chunk in 0..<count {
            let window = windows + chunk * Self.chunkLength
            let rows = a + chunk * Self.framesPerChunk * Self.frameLength
            for f in 0..<3 { (rows + f * Self.frameLength).update(from: window + f * Self.hop, count: Self.frameLength) }
            let last = rows + 3 * Self.frameLength
            last.update(from: window + 3 * Self.hop, count: 192)
            for j in 0..<64 { last[192 + j] = window[574 - j] }
        }
        // Spectrum [frames, 258] in `b`, then magnitude [frames, 129] in `a`.
        BLAS.gemm(m: frames, n: 258, k: Self.frameLength, a: a, lda: Self.frameLength,
                  b: basis.pointer, ldb: Self.frameLength, transposeB: true, c: b, ldc: 258)
        for row in 0..<frames {
            let spectrum = b + row * 258, magnitude = a + row * Self.bins
            for k in 0..<Self.bins {
                let re = spectrum[k], im = spectrum[Self.bins + k]
                magnitude[k] = (re * re + im * im).squareRoot()
            }
        }
        // Encoder: a → b → a → b → a, each through the im2col buffer `scratch.columns`.
        var steps = Self.framesPerChunk
        var input = a, output = b
        for convolution in convolutions {
            steps = convolution.apply(input, chunks: count, steps: steps, columns: scratch.columns, into: output)
            swap(&input, &output)
        }
        // LSTM input projection for all chunks: gates [count, 512] in `output`.
        let gates = output
        for row in 0..<count { (gates + row * 512).update(from: gateBias.pointer, count: 512) }
        BLAS.gemm(m: count, n: 512, k: Self.hiddenSize, a: input, lda: Self.hiddenSize,
                  b: inputWeights.pointer, ldb: Self.hiddenSize, transposeB: true, c: gates, ldc: 512, beta: 1)
        for chunk in 0..<count {
            let g = gates + chunk * 512
            BLAS.gemv(m: 512, n: Self.hiddenSize, a: hiddenWeights.pointer, lda: Self.hiddenSize, x: h, y: g, beta: 1)
            var logit = SIMD16<Float>()
            for j in stride(from: 0, to: Self.hiddenSize, by: 16) {
                let i = Self.sigmoid(Vector.load(g + j)), f = Self.sigmoid(Vector.load(g + 128 + j))
                let candidate = Self.tanh(Vector.load(g + 256 + j)), o = Self.sigmoid(Vector.load(g + 384 + j))
                let cell = f * Vector.load(c + j) + i * candidate
                let hidden = o * Self.tanh(cell)
                Vector.store(cell, c + j)
                Vector.store(hidden, h + j)
                logit += hidden.replacing(with: 0, where: hidden .< 0) * Vector.load(headWeights.pointer + j)
            }
            probabilities[chunk] = 1 / (1 + Self.scalarExp(-(logit.sum() + headBias)))
        }
    }

    @inline(__always) static func sigmoid(_ x: SIMD16<Float>) -> SIMD16<Float> { 1 / (1 + FastMath.exp(-x)) }

    /// tanh(x) = 1 − 2 / (e^{2x} + 1); saturates correctly at both ends.
    @inline(__always) static func tanh(_ x: SIMD16<Float>) -> SIMD16<Float> { 1 - 2 / (FastMath.exp(x + x) + 1) }

    @inline(__always) static func scalarExp(_ x: Float) -> Float { FastMath.exp(SIMD16(repeating: x))[0] }
}

extension SileroVADWeights.Convolution {
    /// Kernel 3, padding 1, this convolution's stride, then ReLU, over `chunks` independent sequences of `steps`
    /// rows each; returns the output steps per chunk.
    func apply(_ input: UnsafePointer<Float>, chunks: Int, steps: Int, columns: UnsafeMutablePointer<Float>,
               into output: UnsafeMutablePointer<Float>) -> Int {
        let outSteps = (steps - 1) / stride + 1
        let width = 3 * inputs
        for chunk in 0..<chunks {
            for t in 0..<outSteps {
                let row = columns + (chunk * outSteps + t) * width
                for k in 0..<3 {
                    let position = t * stride + k - 1
                    if position >= 0 && position < steps {
                        (row + k * inputs).update(from: input + (chunk * steps + position) * inputs, count: inputs)
                    } else {
                        (row + k * inputs).update(repeating: 0, count: inputs)
                    }
                }
            }
        }
        let rows = chunks * outSteps
        for r in 0..<rows { (output + r * outputs).update(from: bias.pointer, count: outputs) }
        BLAS.gemm(m: rows, n: outputs, k: width, a: columns, lda: width, b: weight.pointer, ldb: width,
                  transposeB: true, c: output, ldc: outputs, beta: 1)
        // ReLU; `outputs` is a multiple of 16.
        for i in Swift.stride(from: 0, to: rows * outputs, by: 16) {
            let v = Vector.load(output + i)
            Vector.store(v.replacing(with: 0, where: v .< 0), output + i)
        }
        return outSteps
    }
}
