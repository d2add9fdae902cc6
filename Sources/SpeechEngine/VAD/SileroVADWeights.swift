import Foundation

/// The 16 kHz Silero VAD (v5/v6 architecture) weights, packed for the forward pass.
///
/// Convolution kernels `[out, in, 3]` are repacked to `[out, 3·in]` with index `k·in + c`, the layout of the
/// time-major im2col rows the forward pass builds; the LSTM's two biases are summed.
struct SileroVADWeights: Sendable {
    /// STFT basis `[258, 256]`: 129 windowed cosine rows, then 129 sine rows.
    let basis: Tensor
    /// The four encoder convolutions, in order.
    let convolutions: [Convolution]
    /// LSTM cell input and hidden weights `[512, 128]` (gates i, f, g, o), summed bias `[512]`.
    let inputWeights: Tensor, hiddenWeights: Tensor, gateBias: Tensor
    /// The output head: `[128]` and a scalar bias.
    let headWeights: Tensor
    let headBias: Float

    struct Convolution: Sendable {
        let inputs: Int, outputs: Int, stride: Int
        /// `[outputs, 3·inputs]`, index `k·inputs + c`.
        let weight: Tensor
        let bias: Tensor
    }

    /// Logical names, with the names each file format uses for them.
    enum Name: CaseIterable {
        case basis, conv1W, conv1B, conv2W, conv2B, conv3W, conv3B, conv4W, conv4B
        case weightIH, weightHH, biasIH, biasHH, headW, headB

        var safetensors: String {
            switch self {
            case .basis: "stft_conv.weight"
            case .conv1W: "conv1.weight"
            case .conv1B: "conv1.bias"
            case .conv2W: "conv2.weight"
            case .conv2B: "conv2.bias"
            case .conv3W: "conv3.weight"
            case .conv3B: "conv3.bias"
            case .conv4W: "conv4.weight"
            case .conv4B: "conv4.bias"
            case .weightIH: "lstm_cell.weight_ih"
            case .weightHH: "lstm_cell.weight_hh"
            case .biasIH: "lstm_cell.bias_ih"
            case .biasHH: "lstm_cell.bias_hh"
            case .headW: "final_conv.weight"
            case .headB: "final_conv.bias"
            }
        }

        /// The suffix of the ONNX constant's name (the 16 kHz branch adds a prefix of its own).
        var onnx: String {
            switch self {
            case .basis: "stft.forward_basis_buffer"
            case .conv1W: "encoder.0.reparam_conv.weight"
            case .conv1B: "encoder.0.reparam_conv.bias"
            case .conv2W: "encoder.1.reparam_conv.weight"
            case .conv2B: "encoder.1.reparam_conv.bias"
            case .conv3W: "encoder.2.reparam_conv.weight"
            case .conv3B: "encoder.2.reparam_conv.bias"
            case .conv4W: "encoder.3.reparam_conv.weight"
            case .conv4B: "encoder.3.reparam_conv.bias"
            case .weightIH: "decoder.rnn.weight_ih"
            case .weightHH: "decoder.rnn.weight_hh"
            case .biasIH: "decoder.rnn.bias_ih"
            case .biasHH: "decoder.rnn.bias_hh"
            case .headW: "decoder.decoder.2.weight"
            case .headB: "decoder.decoder.2.bias"
            }
        }

        var shape: [Int] {
            switch self {
            case .basis: [258, 1, 256]
            case .conv1W: [128, 129, 3]
            case .conv2W: [64, 128, 3]
            case .conv3W: [64, 64, 3]
            case .conv4W: [128, 64, 3]
            case .conv1B, .conv4B: [128]
            case .conv2B, .conv3B: [64]
            case .weightIH, .weightHH: [512, 128]
            case .biasIH, .biasHH: [512]
            case .headW: [1, 128, 1]
            case .headB: [1]
            }
        }
    }

    /// Builds the weights from named fp32 arrays, checking every shape.
    init(lookup: (Name) throws -> (shape: [Int], values: [Float])) throws {
        var found: [Name: [Float]] = [:]
        for name in Name.allCases {
            let (shape, values) = try lookup(name)
            guard shape == name.shape else {
                throw VADError.unexpectedShape(name.safetensors, expected: name.shape, actual: shape)
            }
            found[name] = values
        }
        basis = Tensor(shape: [258, 256], values: found[.basis]!)
        func convolution(_ w: Name, _ b: Name, stride: Int) -> Convolution {
            let outputs = w.shape[0], inputs = w.shape[1], kernel = w.shape[2]
            let source = found[w]!
            let packed = Tensor(shape: [outputs, kernel * inputs]) { buffer in
                for o in 0..<outputs {
                    for c in 0..<inputs {
                        for k in 0..<kernel {
                            buffer[o * kernel * inputs + k * inputs + c] = source[(o * inputs + c) * kernel + k]
                        }
                    }
                }
            }
            return Convolution(inputs: inputs, outputs: outputs, stride: stride, weight: packed,
                               bias: Tensor(shape: [outputs], values: found[b]!))
        }
        convolutions = [
            convolution(.conv1W, .conv1B, stride: 1), convolution(.conv2W, .conv2B, stride: 2),
            convolution(.conv3W, .conv3B, stride: 2), convolution(.conv4W, .conv4B, stride: 1),
        ]
        inputWeights = Tensor(shape: [512, 128], values: found[.weightIH]!)
        hiddenWeights = Tensor(shape: [512, 128], values: found[.weightHH]!)
        gateBias = Tensor(shape: [512], values: zip(found[.biasIH]!, found[.biasHH]!).map { $0 + $1 })
        headWeights = Tensor(shape: [128], values: found[.headW]!)
        headBias = found[.headB]![0]
    }

    /// Reads `silero_vad_16k.safetensors`.
    init(safetensors url: URL) throws {
        let file = try SafeTensorsFile(url: url)
        try self.init { name in
            guard let entry = file.tensors[name.safetensors] else { throw VADError.missingWeight(name.safetensors) }
            return (entry.shape, entry.values)
        }
    }

    /// Reads the 16 kHz branch of `silero_vad.onnx`: the constants sharing the prefix of the `[258, 1, 256]` STFT basis.
    init(onnx url: URL) throws {
        let file = try ONNXConstants(url: url)
        let basisSuffix = Name.basis.onnx
        guard let basisName = file.tensors.first(where: { $0.key.hasSuffix(basisSuffix) && $0.value.shape == Name.basis.shape })?.key
        else { throw VADError.missingWeight(basisSuffix) }
        let prefix = basisName.dropLast(basisSuffix.count)
        try self.init { name in
            guard let entry = file.tensors[prefix + name.onnx] else { throw VADError.missingWeight(name.onnx) }
            return (entry.shape, entry.values)
        }
    }
}
