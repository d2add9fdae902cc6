import Foundation

/// Moonshine's weights as the engine computes with them, read from the two ORT-format graphs (`ORTWeights`) and laid
/// out for its products: each `MatMul` weight (`[in, out]` in the graph) transposed to a linear layer's `[out, in]`,
/// each convolution's kernel split by tap (`[tap][out][in]`, one product per tap). The products see the values
/// ONNX Runtime's do (8-bit weights dequantized as the graph does, `q × scale + zeroPoint` in float32): the encoder's
/// and the cross-attention's keys and values (many rows at once) as float32 matrices, the decoder's per-token products
/// (one row a step) kept in 8 bits and dequantized as they stream (`WeightInt8Matrix`), a quarter of the bytes.
///
/// The architecture (Useful Sensors' Moonshine, as exported with ONNX Runtime's names): a convolutional stem on raw
/// 16 kHz audio (conv1 stride 64 without bias, tanh, one-group group norm, conv2 stride 3 and conv3 stride 2 with GELU),
/// pre-norm encoder layers (rotary self-attention without biases, GELU feed-forward), pre-norm decoder layers
/// (rotary causal self-attention, cross-attention, a SiLU-gated feed-forward), layer norms without a bias, and logits
/// from the token embedding.
struct MoonshineWeights: Sendable {
    struct AttentionWeights: Sendable {
        let norm: Tensor
        let query: Linear, key: Linear, value: Linear, output: Linear
    }

    struct EncoderLayer: Sendable {
        let attention: AttentionWeights
        let feedForward: FeedForwardWeights
    }

    struct DecoderLayer: Sendable {
        let selfAttention: AttentionWeights
        let crossAttention: AttentionWeights
        let feedForwardNorm: Tensor
        /// `[2 · inner, d]`: the first `inner` outputs are the values, the rest the gates (SiLU).
        let gatedUp: Linear
        let down: Linear
    }

    /// Attention heads; every published Moonshine has 8 (the graphs hold the number only in reshape constants).
    static let heads = 8

    let modelWidth: Int
    var headDim: Int { modelWidth / Self.heads }

    let conv1: Tensor                      // [width, 127]
    let conv1Stride = 64
    let groupNormGamma: Tensor, groupNormBeta: Tensor
    let conv2: Tensor, conv2Bias: Tensor   // [7][2·width][width]
    let conv3: Tensor, conv3Bias: Tensor   // [3][width][2·width]
    let encoderLayers: [EncoderLayer]
    let encoderNorm: Tensor
    /// `[vocabulary, d]`: the token embedding and, tied, the output projection.
    let embedding: Linear
    let decoderLayers: [DecoderLayer]
    let decoderNorm: Tensor
    let rotary: RotaryEmbedding
    /// The missing bias of every layer norm.
    let zeros: Tensor

    var vocabularySize: Int { embedding.outputs }

    /// The embedding of `token` into `out` (`d` floats).
    func embed(_ token: Int, into out: UnsafeMutablePointer<Float>) {
        switch embedding.weight {
        case .weightInt8(let matrix): matrix.dequantizeRow(token, into: out)
        case .full(let tensor): out.update(from: tensor.row(token), count: modelWidth)
        default: preconditionFailure("MoonshineWeights: an embedding is 8-bit or float32")
        }
    }

    init(encoder: ORTWeights, decoder: ORTWeights) throws {
        let conv1Dims = try encoder.dims("conv1.weight")
        guard conv1Dims.count == 3, conv1Dims[1] == 1, conv1Dims[0] % Self.heads == 0 else {
            throw ORTFormatError.invalidTensor("conv1.weight", reason: "has the shape \(conv1Dims), not [width, 1, kernel]")
        }
        let d = conv1Dims[0]
        modelWidth = d
        conv1 = Tensor(shape: [d, conv1Dims[2]], values: try encoder.values("conv1.weight"))
        groupNormGamma = try Self.vector(encoder, consumedBy: "/groupnorm/Mul", count: d)
        groupNormBeta = try Self.vector(encoder, consumedBy: "/groupnorm/Add", count: d)
        (conv2, conv2Bias) = try Self.convolution(encoder, "conv2", outputs: 2 * d, inputs: d)
        (conv3, conv3Bias) = try Self.convolution(encoder, "conv3", outputs: d, inputs: 2 * d)
        zeros = Tensor(shape: [d], values: [Float](repeating: 0, count: d))

        let zeros = zeros
        func norm(_ weights: ORTWeights, _ name: String) throws -> Tensor {
            let values = try weights.values(name)
            guard values.count == d else { throw ORTFormatError.invalidTensor(name, reason: "has \(values.count) values, not \(d)") }
            return Tensor(shape: [d], values: values)
        }
        /// `perToken`: the layer runs one token a step (its products stay 8-bit); `memoryPerClip`: its keys and
        /// values are computed once over the encoder's frames (float32).
        func attention(_ weights: ORTWeights, _ prefix: String, norm normName: String, perToken: Bool = false,
                       memoryPerClip: Bool = false) throws -> AttentionWeights {
            AttentionWeights(norm: try norm(weights, normName),
                             query: try Self.linear(weights, "\(prefix).q_proj", inputs: d, outputs: d, perToken: perToken),
                             key: try Self.linear(weights, "\(prefix).k_proj", inputs: d, outputs: d,
                                                  perToken: perToken && !memoryPerClip),
                             value: try Self.linear(weights, "\(prefix).v_proj", inputs: d, outputs: d,
                                                    perToken: perToken && !memoryPerClip),
                             output: try Self.linear(weights, "\(prefix).dense", inputs: d, outputs: d, perToken: perToken))
        }

        var encoderLayers: [EncoderLayer] = []
        while encoder.has("layers.\(encoderLayers.count).self_attn.q_proj.weight") {
            let layer = "layers.\(encoderLayers.count)"
            let inner = try encoder.dims("\(layer).mlp.fc1.weight").last ?? 0
            encoderLayers.append(EncoderLayer(
                attention: try attention(encoder, "\(layer).self_attn", norm: "\(layer).input_layernorm.weight"),
                feedForward: FeedForwardWeights(
                    normGamma: try norm(encoder, "\(layer).post_attention_layernorm.weight"), normBeta: zeros,
                    up: try Self.linear(encoder, "\(layer).mlp.fc1", inputs: d, outputs: inner, bias: true),
                    down: try Self.linear(encoder, "\(layer).mlp.fc2", inputs: inner, outputs: d, bias: true))))
        }
        guard !encoderLayers.isEmpty else { throw ORTFormatError.missingWeight("layers.0.self_attn.q_proj.weight") }
        self.encoderLayers = encoderLayers
        encoderNorm = try norm(encoder, "layer_norm.weight")

        let embeddingDims = try decoder.dims("model.decoder.embed_tokens.weight")
        guard embeddingDims.count == 2, embeddingDims[1] == d else {
            throw ORTFormatError.invalidTensor("model.decoder.embed_tokens.weight", reason: "has the shape \(embeddingDims), not [vocabulary, \(d)]")
        }
        embedding = try Self.linear(decoder, "model.decoder.embed_tokens", inputs: d, outputs: embeddingDims[0],
                                    perToken: true, transposed: false)
        var decoderLayers: [DecoderLayer] = []
        while decoder.has("model.decoder.layers.\(decoderLayers.count).self_attn.q_proj.weight") {
            let layer = "model.decoder.layers.\(decoderLayers.count)"
            let inner = try decoder.dims("\(layer).mlp.down_proj.weight").first ?? 0
            decoderLayers.append(DecoderLayer(
                selfAttention: try attention(decoder, "\(layer).self_attn", norm: "\(layer).input_layernorm.weight",
                                             perToken: true),
                crossAttention: try attention(decoder, "\(layer).encoder_attn", norm: "\(layer).post_attention_layernorm.weight",
                                              perToken: true, memoryPerClip: true),
                feedForwardNorm: try norm(decoder, "\(layer).final_layernorm.weight"),
                gatedUp: try Self.linear(decoder, "\(layer).mlp.up_proj", inputs: d, outputs: 2 * inner, bias: true,
                                         perToken: true),
                down: try Self.linear(decoder, "\(layer).mlp.down_proj", inputs: inner, outputs: d, bias: true,
                                      perToken: true)))
        }
        guard !decoderLayers.isEmpty else { throw ORTFormatError.missingWeight("model.decoder.layers.0.self_attn.q_proj.weight") }
        self.decoderLayers = decoderLayers
        decoderNorm = try norm(decoder, "model.decoder.norm.weight")

        let frequencies = try encoder.floats(consumedBy: "/rotary_emb/MatMul")
        guard !frequencies.isEmpty, 2 * frequencies.count <= d / Self.heads,
              frequencies.allSatisfy({ $0.isFinite && $0 > 0 }) else {
            throw ORTFormatError.malformed("the rotary embedding's \(frequencies.count) frequencies do not fit heads of \(d / Self.heads)")
        }
        rotary = RotaryEmbedding(inverseFrequencies: frequencies)
    }

    /// A linear layer from the graph's weight `name.weight` (and its bias, `name.bias`): a `MatMul` weight
    /// `[inputs, outputs]`, or with `transposed` false one already `[outputs, inputs]` (the embedding). `perToken`:
    /// an 8-bit weight stays 8-bit (`WeightInt8Matrix`), else it is dequantized to float32.
    private static func linear(_ weights: ORTWeights, _ name: String, inputs: Int, outputs: Int, bias: Bool = false,
                               perToken: Bool = false, transposed: Bool = true) throws -> Linear {
        let weightName = "\(name).weight"
        let dims = try weights.dims(weightName)
        let expected = transposed ? [inputs, outputs] : [outputs, inputs]
        guard dims == expected else {
            throw ORTFormatError.invalidTensor(weightName, reason: "has the shape \(dims), not \(expected)")
        }
        var biasTensor: Tensor?
        if bias {
            let values = try weights.values("\(name).bias")
            guard values.count == outputs else {
                throw ORTFormatError.invalidTensor("\(name).bias", reason: "has \(values.count) values, not \(outputs)")
            }
            biasTensor = Tensor(shape: [outputs], values: values)
        }
        /// `values` written into `out` as `[outputs, inputs]` (from `[inputs, outputs]` when `transposed`).
        func arrange<T>(_ values: [T], into out: UnsafeMutableBufferPointer<T>) {
            guard transposed else { _ = out.initialize(from: values); return }
            for i in 0..<inputs {
                for o in 0..<outputs { out[o * inputs + i] = values[i * outputs + o] }
            }
        }
        if perToken, let quantized = weights.quantized[weightName] {
            let values = try weights.model.int8s(quantized.initializer)
            let matrix = WeightInt8Matrix(rows: outputs, columns: inputs, scale: quantized.scale,
                                          zeroPoint: quantized.zeroPoint, bias: biasTensor) { arrange(values, into: $0) }
            return Linear(weight: .weightInt8(matrix), bias: nil)
        }
        let values = try weights.values(weightName)
        return Linear(weight: .full(Tensor(shape: [outputs, inputs]) { arrange(values, into: $0) }), bias: biasTensor)
    }

    /// A convolution's kernel `[outputs, inputs, taps]` as `[taps][outputs][inputs]`, and its bias.
    private static func convolution(_ weights: ORTWeights, _ name: String, outputs: Int,
                                    inputs: Int) throws -> (Tensor, Tensor) {
        let dims = try weights.dims("\(name).weight")
        guard dims.count == 3, dims[0] == outputs, dims[1] == inputs, dims[2] > 0 else {
            throw ORTFormatError.invalidTensor("\(name).weight", reason: "has the shape \(dims), not [\(outputs), \(inputs), taps]")
        }
        let taps = dims[2]
        let values = try weights.values("\(name).weight")
        let kernel = Tensor(shape: [taps, outputs, inputs]) { out in
            for o in 0..<outputs {
                for i in 0..<inputs {
                    for t in 0..<taps { out[(t * outputs + o) * inputs + i] = values[(o * inputs + i) * taps + t] }
                }
            }
        }
        let bias = try weights.values("\(name).bias")
        guard bias.count == outputs else {
            throw ORTFormatError.invalidTensor("\(name).bias", reason: "has \(bias.count) values, not \(outputs)")
        }
        return (kernel, Tensor(shape: [outputs], values: bias))
    }

    /// The float initializer of `count` values the node `node` takes (the group norm's scale and shift).
    private static func vector(_ weights: ORTWeights, consumedBy node: String, count: Int) throws -> Tensor {
        let values = try weights.floats(consumedBy: node)
        guard values.count == count else {
            throw ORTFormatError.invalidTensor(node, reason: "takes \(values.count) values, not \(count)")
        }
        return Tensor(shape: [count], values: values)
    }
}
