import Foundation

/// CAM++'s weights (3D-Speaker's speaker-verification model, `campplus_cn_en_common.pt`), read from its PyTorch
/// checkpoint and made ready for inference: every batch norm that follows a convolution folded into it, the others
/// kept as a per-channel scale and shift, convolution kernels reordered for the time-major layout
/// (`[out, tap, in]`).
struct CAMPlusPlusWeights: Sendable {
    /// A convolution with its batch norm folded in: `weight` `[out, taps · in]` (2-D kernels: `[out, 3, 3, in]`).
    struct Convolution: Sendable {
        let weight: Tensor
        let bias: Tensor?
        var outputs: Int { weight.shape[0] }
    }

    /// A batch norm before a ReLU: `x · scale + shift`.
    struct Affine: Sendable {
        let scale: Tensor
        let shift: Tensor
    }

    struct ResidualBlock: Sendable {
        let first: Convolution2D, second: Convolution2D
        let shortcut: Convolution2D?
        let stride: Int
    }

    struct DenseLayer: Sendable {
        let normalization: Affine
        /// 1×1, its batch norm folded.
        let bottleneck: Convolution
        /// Kernel 3 at the block's dilation.
        let local: Convolution
        let contextDown: Convolution, contextUp: Convolution
    }

    struct Block: Sendable {
        let layers: [DenseLayer]
        let dilation: Int
        let transitNormalization: Affine
        let transit: Convolution
    }

    static let embeddingSize = 192, growth = 32, bottleneckChannels = 128

    let stem: Convolution2D
    let residualBlocks: [ResidualBlock]
    let headOutput: Convolution2D
    let tdnn: Convolution
    let blocks: [Block]
    let outputNormalization: Affine
    let dense: Tensor
    /// The embedding's batch norm without affine parameters.
    let denseNormalization: Affine

    init(url: URL) throws {
        try self.init(checkpoint: TorchCheckpoint(url: url))
    }

    init(checkpoint: TorchCheckpoint) throws {
        let epsilon: Float = 1e-5
        func normalization(_ prefix: String, channels: Int, affine: Bool = true) throws -> (scale: [Float], shift: [Float]) {
            let mean = try checkpoint.tensor(prefix + ".running_mean", shape: [channels])
            let variance = try checkpoint.tensor(prefix + ".running_var", shape: [channels])
            let gamma = affine ? try checkpoint.tensor(prefix + ".weight", shape: [channels]) : [Float](repeating: 1, count: channels)
            let beta = affine ? try checkpoint.tensor(prefix + ".bias", shape: [channels]) : [Float](repeating: 0, count: channels)
            let scale = (0..<channels).map { gamma[$0] / (variance[$0] + epsilon).squareRoot() }
            return (scale, (0..<channels).map { beta[$0] - mean[$0] * scale[$0] })
        }
        func affine(_ prefix: String, channels: Int, affine: Bool = true) throws -> Affine {
            let (scale, shift) = try normalization(prefix, channels: channels, affine: affine)
            return Affine(scale: Tensor(shape: [channels], values: scale), shift: Tensor(shape: [channels], values: shift))
        }
        /// A convolution `[out, in, taps...]` reordered to `[out, taps..., in]`, with the batch norm `norm` folded.
        func convolution(_ name: String, shape: [Int], norm: String? = nil, bias: Bool = false) throws -> Convolution {
            let raw = try checkpoint.tensor(name + ".weight", shape: shape)
            let outputs = shape[0], inputs = shape[1], taps = shape.dropFirst(2).reduce(1, *)
            var folded = [Float](repeating: 0, count: raw.count)
            var offset = [Float](repeating: 0, count: outputs)
            if bias { offset = try checkpoint.tensor(name + ".bias", shape: [outputs]) }
            var scale = [Float](repeating: 1, count: outputs)
            if let norm {
                let (normScale, normShift) = try normalization(norm, channels: outputs)
                scale = normScale
                offset = (0..<outputs).map { offset[$0] * normScale[$0] + normShift[$0] }
            }
            for o in 0..<outputs {
                for i in 0..<inputs {
                    for t in 0..<taps {
                        folded[(o * taps + t) * inputs + i] = raw[(o * inputs + i) * taps + t] * scale[o]
                    }
                }
            }
            let hasOffset = bias || norm != nil
            return Convolution(weight: Tensor(shape: [outputs, taps * inputs], values: folded),
                               bias: hasOffset ? Tensor(shape: [outputs], values: offset) : nil)
        }

        func convolution2D(_ name: String, shape: [Int], norm: String) throws -> Convolution2D {
            let folded = try convolution(name, shape: shape, norm: norm)
            return Convolution2D(weights: folded.weight, bias: folded.bias, kernel: shape[2])
        }

        let m = 32
        stem = try convolution2D("head.conv1", shape: [m, 1, 3, 3], norm: "head.bn1")
        var residual: [ResidualBlock] = []
        for layer in 1...2 {
            for index in 0...1 {
                let prefix = "head.layer\(layer).\(index)"
                let stride = index == 0 ? 2 : 1
                residual.append(ResidualBlock(
                    first: try convolution2D(prefix + ".conv1", shape: [m, m, 3, 3], norm: prefix + ".bn1"),
                    second: try convolution2D(prefix + ".conv2", shape: [m, m, 3, 3], norm: prefix + ".bn2"),
                    shortcut: stride == 1 ? nil
                        : try convolution2D(prefix + ".shortcut.0", shape: [m, m, 1, 1], norm: prefix + ".shortcut.1"),
                    stride: stride))
            }
        }
        residualBlocks = residual
        headOutput = try convolution2D("head.conv2", shape: [m, m, 3, 3], norm: "head.bn2")
        tdnn = try convolution("xvector.tdnn.linear", shape: [128, m * 10, 5], norm: "xvector.tdnn.nonlinear.batchnorm")

        var channels = 128
        var blocks: [Block] = []
        for (number, (count, dilation)) in [(12, 1), (24, 2), (16, 2)].enumerated() {
            var layers: [DenseLayer] = []
            for index in 1...count {
                let prefix = "xvector.block\(number + 1).tdnnd\(index)"
                let inputs = channels + (index - 1) * Self.growth
                let b = Self.bottleneckChannels
                layers.append(DenseLayer(
                    normalization: try affine(prefix + ".nonlinear1.batchnorm", channels: inputs),
                    bottleneck: try convolution(prefix + ".linear1", shape: [b, inputs, 1], norm: prefix + ".nonlinear2.batchnorm"),
                    local: try convolution(prefix + ".cam_layer.linear_local", shape: [Self.growth, b, 3]),
                    contextDown: try convolution(prefix + ".cam_layer.linear1", shape: [b / 2, b, 1], bias: true),
                    contextUp: try convolution(prefix + ".cam_layer.linear2", shape: [Self.growth, b / 2, 1], bias: true)))
            }
            channels += count * Self.growth
            let prefix = "xvector.transit\(number + 1)"
            blocks.append(Block(layers: layers, dilation: dilation,
                                transitNormalization: try affine(prefix + ".nonlinear.batchnorm", channels: channels),
                                transit: try convolution(prefix + ".linear", shape: [channels / 2, channels, 1])))
            channels /= 2
        }
        self.blocks = blocks
        outputNormalization = try affine("xvector.out_nonlinear.batchnorm", channels: channels)
        dense = try convolution("xvector.dense.linear", shape: [Self.embeddingSize, channels * 2, 1]).weight
        denseNormalization = try affine("xvector.dense.nonlinear.batchnorm", channels: Self.embeddingSize, affine: false)
    }
}
