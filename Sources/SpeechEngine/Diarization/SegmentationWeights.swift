import CVectorKernels
import Foundation

/// pyannote segmentation-3.0's weights (PyanNet: SincNet, a 4-layer bidirectional LSTM, two linear layers and a
/// 7-class powerset classifier; `pytorch_model.bin`, a PyTorch Lightning checkpoint), read once and laid out for the
/// time-major forward pass of `SpeakerSegmentationModel`: the 80 parametric sinc filters computed into an ordinary
/// kernel (and folded about its centre tap), convolution kernels reordered to `[out, tap, in]`, each LSTM layer's
/// input weights of both directions stacked into one matrix with both biases summed, its hidden weights transposed.
struct SegmentationWeights: Sendable {
    /// A convolution over gathered taps: `weight` `[out, taps · in]` (tap-major), `bias` `[out]`.
    struct Convolution: Sendable {
        let weight: Tensor
        let bias: Tensor
        var outputs: Int { weight.shape[0] }
        /// Floats of input one output row reads (`taps · in`).
        var width: Int { weight.shape[1] }
    }

    /// An instance norm's affine parameters, `x̂ · scale + shift` per channel.
    struct Affine: Sendable {
        let scale: Tensor
        let shift: Tensor
    }

    /// One LSTM layer, both directions.
    struct RecurrentLayer: Sendable {
        /// `[2 · 4 · hidden, in]`: the forward direction's input weights (gates i, f, g, o), then the backward one's.
        let input: Tensor
        /// `[2 · 4 · hidden]`: `b_ih + b_hh` of each direction, in the order of `input`'s rows.
        let bias: Tensor
        /// The hidden weights of the forward and the backward direction, transposed (`[hidden, 4 · hidden]`) and
        /// packed in panels for `openspeech_vk_rows_product`.
        let hidden: [Tensor]
    }

    /// A linear layer: `weight` `[out, in]`, `bias` `[out]`.
    struct Linear: Sendable {
        let weight: Tensor
        let bias: Tensor
    }

    static let sampleRate = 16_000
    /// The sinc filters: 40 cosine and 40 sine filters of 251 taps, applied every 10 samples.
    static let sincFilters = 80, sincTaps = 251, sincStride = 10
    /// Columns of each folded half of the sinc kernel (`sincHalves`): the 125 tap pairs and the centre tap, padded
    /// with zero weights to a multiple of 16.
    static let sincHalfWidth = 128
    static let minimumLowHz: Float = 50, minimumBandHz: Float = 50
    /// Channels after the second and third convolutions, their kernel size, the max-pool's size (and stride).
    static let channels = 60, taps = 5, pool = 3
    static let hiddenSize = 128, layers = 4, linearSize = 128, classes = 7

    /// The waveform's instance norm (one channel).
    let waveformScale: Float, waveformShift: Float
    /// The sinc filters, an ordinary kernel `[80, 251]`.
    let sincKernel: Tensor
    /// The sinc filters folded about their centre tap, each `[40, 128]`: an even filter's taps `t` and `250 − t` are
    /// equal, an odd one's opposite, so the 40 even filters are applied to the sums `x[t] + x[250 − t]` (t < 125; the
    /// centre's column holds half its tap, as its sum is `2 x[125]`) and the 40 odd ones to the differences: half the
    /// products of the ordinary kernel. Zero weights in the padding columns.
    let sincHalves: (even: Tensor, odd: Tensor)
    /// The second and third convolutions, `[60, 5 · 80]` and `[60, 5 · 60]`.
    let convolutions: [Convolution]
    /// The instance norm after each convolution's max-pool.
    let normalizations: [Affine]
    let recurrent: [RecurrentLayer]
    let linear: [Linear]
    let classifier: Linear

    init(url: URL) throws {
        try self.init(checkpoint: TorchCheckpoint(url: url))
    }

    init(checkpoint: TorchCheckpoint) throws {
        func tensor(_ name: String, _ shape: [Int]) throws -> Tensor {
            Tensor(shape: shape, values: try checkpoint.tensor(name, shape: shape))
        }
        func affine(_ prefix: String, channels: Int) throws -> Affine {
            Affine(scale: try tensor(prefix + ".weight", [channels]), shift: try tensor(prefix + ".bias", [channels]))
        }
        /// `[out, in, taps]` reordered to `[out, taps · in]`.
        func convolution(_ prefix: String, outputs: Int, inputs: Int) throws -> Convolution {
            let raw = try checkpoint.tensor(prefix + ".weight", shape: [outputs, inputs, Self.taps])
            var reordered = [Float](repeating: 0, count: raw.count)
            for o in 0..<outputs {
                for i in 0..<inputs {
                    for t in 0..<Self.taps {
                        reordered[(o * Self.taps + t) * inputs + i] = raw[(o * inputs + i) * Self.taps + t]
                    }
                }
            }
            return Convolution(weight: Tensor(shape: [outputs, Self.taps * inputs], values: reordered),
                               bias: try tensor(prefix + ".bias", [outputs]))
        }

        let waveform = try checkpoint.tensor("sincnet.wav_norm1d.weight", shape: [1])
        waveformScale = waveform[0]
        waveformShift = try checkpoint.tensor("sincnet.wav_norm1d.bias", shape: [1])[0]
        let bands = Self.sincFilters / 2
        let prefix = "sincnet.conv1d.0.filterbank."
        let filters = Self.sincFilters(low: try checkpoint.tensor(prefix + "low_hz_", shape: [bands, 1]),
                                       band: try checkpoint.tensor(prefix + "band_hz_", shape: [bands, 1]),
                                       times: try checkpoint.tensor(prefix + "n_", shape: [1, Self.sincTaps / 2]),
                                       window: try checkpoint.tensor(prefix + "window_", shape: [Self.sincTaps / 2]))
        sincKernel = Tensor(shape: [Self.sincFilters, Self.sincTaps], values: filters)
        let centre = Self.sincTaps / 2, width = Self.sincHalfWidth
        var even = [Float](repeating: 0, count: bands * width), odd = even
        for k in 0..<bands {
            for t in 0..<centre {
                even[k * width + t] = filters[k * Self.sincTaps + t]
                odd[k * width + t] = filters[(bands + k) * Self.sincTaps + t]
            }
            even[k * width + centre] = filters[k * Self.sincTaps + centre] / 2
        }
        sincHalves = (Tensor(shape: [bands, width], values: even), Tensor(shape: [bands, width], values: odd))
        convolutions = [
            try convolution("sincnet.conv1d.1", outputs: Self.channels, inputs: Self.sincFilters),
            try convolution("sincnet.conv1d.2", outputs: Self.channels, inputs: Self.channels),
        ]
        normalizations = [
            try affine("sincnet.norm1d.0", channels: Self.sincFilters),
            try affine("sincnet.norm1d.1", channels: Self.channels),
            try affine("sincnet.norm1d.2", channels: Self.channels),
        ]

        let gates = 4 * Self.hiddenSize
        var recurrent: [RecurrentLayer] = []
        for layer in 0..<Self.layers {
            let inputs = layer == 0 ? Self.channels : 2 * Self.hiddenSize
            var input: [Float] = [], bias: [Float] = [], hidden: [Tensor] = []
            for suffix in ["", "_reverse"] {
                input += try checkpoint.tensor("lstm.weight_ih_l\(layer)\(suffix)", shape: [gates, inputs])
                let ih = try checkpoint.tensor("lstm.bias_ih_l\(layer)\(suffix)", shape: [gates])
                let hh = try checkpoint.tensor("lstm.bias_hh_l\(layer)\(suffix)", shape: [gates])
                bias += zip(ih, hh).map { $0 + $1 }
                let recurrent = try checkpoint.tensor("lstm.weight_hh_l\(layer)\(suffix)", shape: [gates, Self.hiddenSize])
                var transposed = [Float](repeating: 0, count: recurrent.count)
                for g in 0..<gates {
                    for i in 0..<Self.hiddenSize { transposed[i * gates + g] = recurrent[g * Self.hiddenSize + i] }
                }
                hidden.append(Tensor(shape: [Self.hiddenSize, gates]) { packed in
                    openspeech_vk_pack_panels(transposed, Self.hiddenSize, gates, packed.baseAddress!)
                })
            }
            recurrent.append(RecurrentLayer(input: Tensor(shape: [2 * gates, inputs], values: input),
                                            bias: Tensor(shape: [2 * gates], values: bias), hidden: hidden))
        }
        self.recurrent = recurrent
        linear = [
            Linear(weight: try tensor("linear.0.weight", [Self.linearSize, 2 * Self.hiddenSize]),
                   bias: try tensor("linear.0.bias", [Self.linearSize])),
            Linear(weight: try tensor("linear.1.weight", [Self.linearSize, Self.linearSize]),
                   bias: try tensor("linear.1.bias", [Self.linearSize])),
        ]
        classifier = Linear(weight: try tensor("classifier.weight", [Self.classes, Self.linearSize]),
                            bias: try tensor("classifier.bias", [Self.classes]))
    }

    /// The 80 band-pass filters `[80 × 251]` of SincNet's parametric filter bank, from its 40 learned lower cut-offs
    /// `low` and bandwidths `band` (Hz, their magnitudes above 50 Hz each, the upper cut-off clamped to 50–8000 Hz),
    /// the taps' angular times `times` (`2π (t − 125) / 16000` for the 125 taps before the centre) and the left half
    /// of a 251-tap Hamming `window` (those two as the checkpoint holds them, its `n_` and `window_`). Filter `k < 40`
    /// is the windowed difference of two sinc low-passes (cut-offs `high` and `low`), even about the centre tap;
    /// filter `40 + k` is its quadrature partner, odd about the centre. Each is divided by twice its bandwidth, so an
    /// even filter's centre tap is 1. In single precision, operation for operation as the reference computes them:
    /// where a window is quiet, SincNet's output feels the filters' last bits (double-precision filters moved it by
    /// 1e-4 there).
    static func sincFilters(low: [Float], band: [Float], times: [Float], window: [Float]) -> [Float] {
        let bands = sincFilters / 2, half = sincTaps / 2
        var filters = [Float](repeating: 0, count: sincFilters * sincTaps)
        for k in 0..<bands {
            let lowHz = minimumLowHz + abs(low[k])
            let highHz = min(max(lowHz + minimumBandHz + abs(band[k]), minimumLowHz), Float(sampleRate / 2))
            let width = highHz - lowHz
            let even = k * sincTaps, odd = (bands + k) * sincTaps
            for tap in 0..<half {
                let n = times[tap]
                let lowAngle = Double(lowHz * n), highAngle = Double(highHz * n)
                let sines = Float(libmSin(highAngle)) - Float(libmSin(lowAngle))
                let cosines = Float(libmCos(lowAngle)) - Float(libmCos(highAngle))
                let cosine = sines / (n / 2) * window[tap] / (2 * width)
                let sine = cosines / (n / 2) * window[tap] / (2 * width)
                filters[even + tap] = cosine
                filters[even + sincTaps - 1 - tap] = cosine
                filters[odd + tap] = sine
                filters[odd + sincTaps - 1 - tap] = -sine
            }
            filters[even + half] = 1
            filters[odd + half] = 0
        }
        return filters
    }
}
