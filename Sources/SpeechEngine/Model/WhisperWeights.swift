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

/// All weights of a Whisper model in fp32, converted once at load.
struct WhisperWeights: Sendable {
    let dimensions: ModelDimensions
    /// `[d, melBins·3]` and `[d, d·3]`: kernels flattened as (input channel, tap).
    let conv1Weight: Tensor, conv1Bias: Tensor
    let conv2Weight: Tensor, conv2Bias: Tensor
    let encoderPositions: Tensor
    let encoderLayers: [EncoderLayerWeights]
    let encoderNormGamma: Tensor, encoderNormBeta: Tensor
    /// `[vocabulary, d]` in half precision (exact for fp16 models), also the output projection.
    let embedding: HalfMatrix
    let decoderPositions: Tensor
    let decoderLayers: [DecoderLayerWeights]
    let decoderNormGamma: Tensor, decoderNormBeta: Tensor

    init(file: ModelFile) throws {
        func has(_ name: String) -> Bool { file.variable(name) != nil }
        func count(_ prefix: String) -> Int {
            var n = 0
            while has("\(prefix)/layer_\(n)/ffn/linear_0/weight") { n += 1 }
            return n
        }
        guard let conv1 = file.variable("encoder/conv1/weight"), conv1.shape.count == 3,
              let embed = file.variable("decoder/embeddings/weight"), embed.shape.count == 2,
              let encPos = file.variable("encoder/position_encodings/encodings"),
              let decPos = file.variable("decoder/position_encodings/encodings")
        else { throw ModelError.missingVariable("encoder/conv1/weight, decoder/embeddings/weight or position encodings") }
        let d = conv1.shape[0], mels = conv1.shape[1]
        dimensions = ModelDimensions(
            melBins: mels, modelWidth: d,
            encoderHeads: try file.integer("encoder/num_heads"), decoderHeads: try file.integer("decoder/num_heads"),
            encoderLayers: count("encoder"), decoderLayers: count("decoder"),
            vocabularySize: embed.shape[0], audioContext: encPos.shape[0], textContext: decPos.shape[0])
        guard embed.shape[1] == d, d % 16 == 0, dimensions.encoderHeads > 0, d % dimensions.encoderHeads == 0,
              dimensions.decoderHeads > 0, d % dimensions.decoderHeads == 0,
              dimensions.encoderLayers > 0, dimensions.decoderLayers > 0
        else { throw ModelError.unexpectedShape("decoder/embeddings/weight", embed.shape) }

        conv1Weight = try file.tensor("encoder/conv1/weight", shape: [d, mels * 3])
        conv1Bias = try file.tensor("encoder/conv1/bias", shape: [d])
        conv2Weight = try file.tensor("encoder/conv2/weight", shape: [d, d * 3])
        conv2Bias = try file.tensor("encoder/conv2/bias", shape: [d])
        encoderPositions = try file.tensor("encoder/position_encodings/encodings", shape: [dimensions.audioContext, d])
        encoderNormGamma = try file.tensor("encoder/layer_norm/gamma", shape: [d])
        encoderNormBeta = try file.tensor("encoder/layer_norm/beta", shape: [d])
        embedding = try file.halfMatrix("decoder/embeddings/weight")
        decoderPositions = try file.tensor("decoder/position_encodings/encodings", shape: [dimensions.textContext, d])
        decoderNormGamma = try file.tensor("decoder/layer_norm/gamma", shape: [d])
        decoderNormBeta = try file.tensor("decoder/layer_norm/beta", shape: [d])

        /// Always fp16 in the decoder's steps; elsewhere fp16 where the file stores fp16 (exact), else fp32.
        func layer(_ p: String, _ out: Int, _ inputs: Int, alwaysHalf: Bool) throws -> Linear {
            let bias = try file.tensor("\(p)/bias", shape: [out])
            // The half kernel reads 16 columns at a time; other widths stay in fp32.
            guard alwaysHalf || file.variable("\(p)/weight")?.dataType == .float16, inputs % 16 == 0 else {
                return Linear(weight: .full(try file.tensor("\(p)/weight", shape: [out, inputs])), bias: bias)
            }
            let matrix = try file.halfMatrix("\(p)/weight")
            guard matrix.rows == out, matrix.columns == inputs else {
                throw ModelError.unexpectedShape("\(p)/weight", [matrix.rows, matrix.columns])
            }
            return Linear(weight: .half(matrix), bias: bias)
        }
        func norm(_ p: String) throws -> (Tensor, Tensor) {
            (try file.tensor("\(p)/gamma", shape: [d]), try file.tensor("\(p)/beta", shape: [d]))
        }
        func feedForward(_ p: String, alwaysHalf: Bool) throws -> FeedForwardWeights {
            let (g, b) = try norm("\(p)/layer_norm")
            let hidden = file.variable("\(p)/linear_0/weight")?.shape.first ?? 4 * d
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
        encoderLayers = try (0..<dimensions.encoderLayers).map { i in
            EncoderLayerWeights(attention: try selfAttention("encoder/layer_\(i)/self_attention", alwaysHalf: false),
                                feedForward: try feedForward("encoder/layer_\(i)/ffn", alwaysHalf: false))
        }
        decoderLayers = try (0..<dimensions.decoderLayers).map { i in
            DecoderLayerWeights(selfAttention: try selfAttention("decoder/layer_\(i)/self_attention", alwaysHalf: true),
                                crossAttention: try crossAttention("decoder/layer_\(i)/attention"),
                                feedForward: try feedForward("decoder/layer_\(i)/ffn", alwaysHalf: true))
        }
    }
}
