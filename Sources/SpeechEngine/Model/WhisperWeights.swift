/// Weights of one attention block (fused projections as CTranslate2 stores them).
struct AttentionWeights: Sendable {
    let normGamma: Tensor, normBeta: Tensor
    /// Self-attention: fused Q,K,V `[3d, d]`. Cross-attention: Q only `[d, d]`.
    let input: Linear
    /// Cross-attention only: fused K,V on the encoder output `[2d, d]` (1500 rows at once).
    let memory: Linear?
    let output: Linear
}

/// Weights of a feed-forward block.
struct FeedForwardWeights: Sendable {
    let normGamma: Tensor, normBeta: Tensor
    let up: Linear
    let down: Linear
}

struct EncoderLayerWeights: Sendable {
    let attention: AttentionWeights
    let feedForward: FeedForwardWeights
}

struct DecoderLayerWeights: Sendable {
    let selfAttention: AttentionWeights
    let crossAttention: AttentionWeights
    let feedForward: FeedForwardWeights
}

/// How much of a model a load keeps.
enum WeightScope: Sendable, Equatable {
    /// Every weight, in the compute type's form: what transcription needs.
    case everything
    /// What one decoder step on `tokens[0]` and the logits of `tokens` alone need (language detection): the encoder
    /// and the cross-attention keys/values in the compute type (as `everything` computes them), the decoder's step
    /// weights in half precision, streamed once (no int8 conversion or packing for a single step), and only the
    /// embedding rows of `tokens`: row i of `embedding` and of `outputProjection` is token `tokens[i]`.
    case step(tokens: [Int])
}

/// All weights of a Whisper model, converted once at load to the compute type's form.
struct WhisperWeights: Sendable {
    let dimensions: ModelDimensions
    /// The type the products run in (resolved: never `auto`).
    let computeType: ComputeType
    /// Convolutions as linear layers over `[input channel, tap]` columns: `[d, melBins·3]` and `[d, d·3]`.
    let conv1: Linear, conv2: Linear
    let encoderPositions: Tensor
    let encoderLayers: [EncoderLayerWeights]
    let encoderNormGamma: Tensor, encoderNormBeta: Tensor
    /// `[vocabulary, d]` in half precision (exact for fp16 models): the token embeddings.
    let embedding: HalfMatrix
    /// The output projection (the embedding matrix, tied), in the compute type.
    let outputProjection: Linear
    let decoderPositions: Tensor
    let decoderLayers: [DecoderLayerWeights]
    let decoderNormGamma: Tensor, decoderNormBeta: Tensor

    /// Weights of `file` for products in `computeType`; `threads` (the sessions' `Parallel`) decides how many parts
    /// very large matrices are packed in, so that each thread streams its own part.
    init(file: ModelFile, computeType requested: ComputeType = .float16, threads: Int = 1,
         scope: WeightScope = .everything) throws {
        func has(_ name: String) -> Bool { file.variable(name) != nil }
        func count(_ prefix: String) -> Int {
            var n = 0
            while has("\(prefix)/layer_\(n)/ffn/linear_0/weight") { n += 1 }
            return n
        }
        guard let conv1 = file.variable("encoder/conv1/weight"), conv1.shape.count == 3,
              let embed = file.variable("decoder/embeddings/weight"), embed.shape.count == 2,
              let encPos = file.variable("encoder/position_encodings/encodings"), encPos.shape.count == 2,
              let decPos = file.variable("decoder/position_encodings/encodings"), decPos.shape.count == 2
        else { throw ModelError.missingVariable("encoder/conv1/weight, decoder/embeddings/weight or position encodings") }
        let d = conv1.shape[0], mels = conv1.shape[1]
        // Sizes every later product and loop trusts: checked here, against each other and Whisper's fixed window.
        guard d > 0, mels > 0, conv1.shape[2] == 3 else {
            throw ModelError.inconsistentModel(file: "model.bin", field: "encoder/conv1/weight",
                                               reason: "has shape \(conv1.shape), not [width, mel bins, 3]")
        }
        guard encPos.shape[0] == LogMelSpectrogram.windowFrames / 2 else {
            throw ModelError.inconsistentModel(
                file: "model.bin", field: "encoder/position_encodings/encodings",
                reason: "has \(encPos.shape[0]) positions where Whisper's 30 s window needs \(LogMelSpectrogram.windowFrames / 2)")
        }
        guard decPos.shape[0] >= 64 else {
            throw ModelError.inconsistentModel(file: "model.bin", field: "decoder/position_encodings/encodings",
                                               reason: "has \(decPos.shape[0]) positions, fewer than the 64 a window's prompt needs")
        }
        guard embed.shape[0] > 0 else {
            throw ModelError.inconsistentModel(file: "model.bin", field: "decoder/embeddings/weight", reason: "has no rows")
        }
        dimensions = ModelDimensions(
            melBins: mels, modelWidth: d,
            encoderHeads: try file.integer("encoder/num_heads"), decoderHeads: try file.integer("decoder/num_heads"),
            encoderLayers: count("encoder"), decoderLayers: count("decoder"),
            vocabularySize: embed.shape[0], audioContext: encPos.shape[0], textContext: decPos.shape[0])
        guard embed.shape[1] == d, d % 16 == 0, dimensions.encoderHeads > 0, d % dimensions.encoderHeads == 0,
              dimensions.decoderHeads > 0, d % dimensions.decoderHeads == 0,
              dimensions.encoderLayers > 0, dimensions.decoderLayers > 0
        else { throw ModelError.unexpectedShape("decoder/embeddings/weight", embed.shape) }
        let computeType = requested.resolved
        self.computeType = computeType

        /// The weight `name` (`[out, inputs]`) with `bias`: packed for oneDNN in the compute type (`floatOnly`: fp32
        /// whatever the type). With the `float16` type, the decoder's step weights (`alwaysHalf`) stay fp16 for the
        /// engine's streaming kernel (few rows per step: bound by the bytes read) and the rest is packed as fp32;
        /// without oneDNN, fp16 where the file stores fp16 or `alwaysHalf` asks, else fp32.
        func linear(_ name: String, _ out: Int, _ inputs: Int, bias: Tensor?, alwaysHalf: Bool = false,
                    floatOnly: Bool = false) throws -> Linear {
            guard let v = file.variable(name), out > 0, inputs > 0,
                  case let (product, overflow) = out.multipliedReportingOverflow(by: inputs), !overflow,
                  ModelFile.elementCount(v.shape) == product
            else {
                throw ModelError.unexpectedShape(name, file.variable(name)?.shape ?? [])
            }
            // One decoder step: the file's values streamed as they are (fp16) or in fp32, converted no further.
            if alwaysHalf, scope != .everything {
                guard v.dataType == .float16, inputs % 16 == 0 else {
                    return Linear(weight: .full(try file.tensor(name, shape: [out, inputs])), bias: bias)
                }
                let matrix = try file.halfMatrix(name)
                guard matrix.rows == out, matrix.columns == inputs else {
                    throw ModelError.unexpectedShape(name, [matrix.rows, matrix.columns])
                }
                return Linear(weight: .half(matrix), bias: bias)
            }
            #if canImport(CDNNL)
            if computeType == .int8 && alwaysHalf && !floatOnly && Int8Matrix.replacesOneDNN {
                // int8 without VNNI: the decoder's few-row products through the engine's own AVX2 kernel.
                if let matrix = try file.withInt8Weights(name, { values, scales in
                    Int8Matrix(int8: values, scales: scales, rows: out, columns: inputs, bias: bias)
                }) {
                    return Linear(weight: .int8(matrix), bias: bias)
                }
                let values = try file.tensor(name, shape: [out, inputs])
                return Linear(weight: .int8(Int8Matrix(weights: values.pointer, rows: out, columns: inputs, bias: bias)),
                              bias: bias)
            }
            if computeType != .float16 || !alwaysHalf {
                // int8 without VNNI below AVX2: the decoder's few-row products stay fp32 (oneDNN's int8 kernels copy
                // the weights on every such call there), the encoder's many-row ones run int8 (2.7× faster than fp32).
                let int8 = MatrixBackend.hasVNNI || !alwaysHalf
                let precision: PackedMatrix.Precision = floatOnly ? .float32
                    : computeType == .int8 ? (int8 ? .int8 : .float32) : computeType == .bfloat16 ? .bfloat16 : .float32
                // Matrices too large for one core's share of memory bandwidth are split between threads, in parts of at
                // most 16 MB: oneDNN's AVX2 kernels copy a part's weights into a fresh buffer per product, and glibc
                // maps buffers above 32 MB anew (zeroing every page) on each call instead of reusing freed memory.
                let bytes = out * inputs * (precision == .int8 ? 1 : precision == .bfloat16 ? 2 : 4)
                let parts = out * inputs < 4 << 20 ? 1 : (max(threads, (bytes + (16 << 20) - 1) >> 24) + threads - 1) / threads * threads
                if precision == .int8, let packed = try file.withInt8Weights(name, { values, scales in
                    PackedMatrix(int8: values, scales: scales, rows: out, columns: inputs, bias: bias, parts: parts)
                }) {
                    return Linear(weight: .packed(packed), bias: bias)
                }
                let values = try file.tensor(name, shape: [out, inputs])
                return Linear(weight: .packed(PackedMatrix(weights: values.pointer, rows: out, columns: inputs, bias: bias,
                                                           precision: precision, parts: parts)), bias: bias)
            }
            #endif
            // The half kernel reads 16 columns at a time; other widths stay in fp32.
            guard !floatOnly, computeType != .float32, alwaysHalf || v.dataType == .float16, inputs % 16 == 0 else {
                return Linear(weight: .full(try file.tensor(name, shape: [out, inputs])), bias: bias)
            }
            let matrix = try file.halfMatrix(name)
            guard matrix.rows == out, matrix.columns == inputs else {
                throw ModelError.unexpectedShape(name, [matrix.rows, matrix.columns])
            }
            return Linear(weight: .half(matrix), bias: bias)
        }
        func layer(_ p: String, _ out: Int, _ inputs: Int, alwaysHalf: Bool) throws -> Linear {
            try linear("\(p)/weight", out, inputs, bias: try file.tensor("\(p)/bias", shape: [out]), alwaysHalf: alwaysHalf)
        }

        self.conv1 = try linear("encoder/conv1/weight", d, mels * 3, bias: try file.tensor("encoder/conv1/bias", shape: [d]),
                                floatOnly: true)
        conv2 = try linear("encoder/conv2/weight", d, d * 3, bias: try file.tensor("encoder/conv2/bias", shape: [d]),
                           floatOnly: true)
        encoderPositions = try file.tensor("encoder/position_encodings/encodings", shape: [dimensions.audioContext, d])
        encoderNormGamma = try file.tensor("encoder/layer_norm/gamma", shape: [d])
        encoderNormBeta = try file.tensor("encoder/layer_norm/beta", shape: [d])
        if case .step(let tokens) = scope {
            embedding = try file.halfMatrix("decoder/embeddings/weight", rows: tokens)
            outputProjection = Linear(weight: .half(embedding), bias: nil)
        } else {
            // Looked up in half precision at every compute type (exact for fp16 files). CTranslate2's int8 looks tokens
            // up in the quantized matrix; measured here 0.7 points worse (greedy, 3 replicas, BENCHMARKS.md).
            embedding = try file.halfMatrix("decoder/embeddings/weight")
            if computeType == .float16 || !MatrixBackend.hasOneDNN {
                outputProjection = Linear(weight: .half(embedding), bias: nil)
            } else {
                outputProjection = try linear("decoder/embeddings/weight", dimensions.vocabularySize, d, bias: nil,
                                              alwaysHalf: true)
            }
        }
        decoderPositions = try file.tensor("decoder/position_encodings/encodings", shape: [dimensions.textContext, d])
        decoderNormGamma = try file.tensor("decoder/layer_norm/gamma", shape: [d])
        decoderNormBeta = try file.tensor("decoder/layer_norm/beta", shape: [d])

        func norm(_ p: String) throws -> (Tensor, Tensor) {
            (try file.tensor("\(p)/gamma", shape: [d]), try file.tensor("\(p)/beta", shape: [d]))
        }
        func feedForward(_ p: String, alwaysHalf: Bool) throws -> FeedForwardWeights {
            let (g, b) = try norm("\(p)/layer_norm")
            let hidden = file.variable("\(p)/linear_0/weight")?.shape.first ?? 4 * d
            guard hidden > 0 else { throw ModelError.unexpectedShape("\(p)/linear_0/weight", [hidden]) }
            return FeedForwardWeights(normGamma: g, normBeta: b, up: try layer("\(p)/linear_0", hidden, d, alwaysHalf: alwaysHalf),
                                      down: try layer("\(p)/linear_1", d, hidden, alwaysHalf: alwaysHalf))
        }
        func selfAttention(_ p: String, alwaysHalf: Bool) throws -> AttentionWeights {
            let (g, b) = try norm("\(p)/layer_norm")
            return AttentionWeights(normGamma: g, normBeta: b, input: try layer("\(p)/linear_0", 3 * d, d, alwaysHalf: alwaysHalf),
                                    memory: nil,
                                    output: try layer("\(p)/linear_1", d, d, alwaysHalf: alwaysHalf))
        }
        func crossAttention(_ p: String) throws -> AttentionWeights {
            let (g, b) = try norm("\(p)/layer_norm")
            return AttentionWeights(normGamma: g, normBeta: b, input: try layer("\(p)/linear_0", d, d, alwaysHalf: true),
                                    memory: try layer("\(p)/linear_1", 2 * d, d, alwaysHalf: false),
                                    output: try layer("\(p)/linear_2", d, d, alwaysHalf: true))
        }
        // Layers convert independently, on the sessions' threads at once: the load is most of a short file's start.
        let parallel = Parallel(threads: threads)
        encoderLayers = try parallel.map(dimensions.encoderLayers) { i in
            EncoderLayerWeights(attention: try selfAttention("encoder/layer_\(i)/self_attention", alwaysHalf: false),
                                feedForward: try feedForward("encoder/layer_\(i)/ffn", alwaysHalf: false))
        }
        decoderLayers = try parallel.map(dimensions.decoderLayers) { i in
            DecoderLayerWeights(selfAttention: try selfAttention("decoder/layer_\(i)/self_attention", alwaysHalf: true),
                                crossAttention: try crossAttention("decoder/layer_\(i)/attention"),
                                feedForward: try feedForward("decoder/layer_\(i)/ffn", alwaysHalf: true))
        }
    }
}
