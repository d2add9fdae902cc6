import Foundation

/// Kaldi's log mel filter bank, the front end speaker-embedding models are trained on (CAM++): 25 ms frames every
/// 10 ms from the first sample (`snip_edges`), each with its mean removed, pre-emphasis 0.97, Povey's window, a
/// 512-point power spectrum, 80 triangular mel filters from 20 Hz to 8 kHz, the natural log (floored at
/// `Float.ulpOfOne`); no dither, no energy. 16 kHz audio.
///
/// The spectrum is one product with a DFT basis (the window folded in), as the Whisper front end does.
struct KaldiFilterBank: Sendable {
    static let frameLength = 400, frameShift = 160, fftSize = 512, bins = 80
    private static let spectrumBins = fftSize / 2 + 1

    /// `[frameLength × 2·spectrumBins]`: the window times cosines and sines.
    private let basis: Tensor
    /// `[spectrumBins × bins]`: the mel filters.
    private let filters: Tensor

    init() {
        let window = (0..<Self.frameLength).map { n in
            Float(pow(0.5 - 0.5 * cos(2 * Double.pi * Double(n) / Double(Self.frameLength - 1)), 0.85))
        }
        basis = Tensor(shape: [Self.frameLength, 2 * Self.spectrumBins]) { out in
            for n in 0..<Self.frameLength {
                for k in 0..<Self.spectrumBins {
                    let angle = 2 * Double.pi * Double((k * n) % Self.fftSize) / Double(Self.fftSize)
                    out[n * 2 * Self.spectrumBins + 2 * k] = window[n] * Float(cos(angle))
                    out[n * 2 * Self.spectrumBins + 2 * k + 1] = -window[n] * Float(sin(angle))
                }
            }
        }
        func mel(_ hertz: Double) -> Double { 1127 * log(1 + hertz / 700) }
        let low = mel(20), high = mel(8000), step = (high - low) / Double(Self.bins + 1)
        filters = Tensor(shape: [Self.spectrumBins, Self.bins]) { out in
            out.initialize(repeating: 0)
            // Kaldi's filters cover the bins below Nyquist (the last bin gets no weight).
            for k in 0..<(Self.fftSize / 2) {
                let m = mel(Double(k) * 16000 / Double(Self.fftSize))
                for bin in 0..<Self.bins {
                    let left = low + Double(bin) * step, center = left + step, right = center + step
                    guard m > left, m < right else { continue }
                    out[k * Self.bins + bin] = Float(m <= center ? (m - left) / (center - left) : (right - m) / (right - center))
                }
            }
        }
    }

    /// Frames `count` samples make (none below one frame's length).
    static func frameCount(samples count: Int) -> Int {
        count < frameLength ? 0 : 1 + (count - frameLength) / frameShift
    }

    /// The features of `samples`, `[frames × bins]` row-major, into `output` (`frameCount(samples:)` rows).
    func features(_ samples: UnsafeBufferPointer<Float>, into output: UnsafeMutablePointer<Float>, scratch: Buffer) {
        let frames = Self.frameCount(samples: samples.count)
        guard frames > 0 else { return }
        let length = Self.frameLength, columns = 2 * Self.spectrumBins
        let frameRows = scratch.reserve(frames * length + frames * columns)
        let spectra = frameRows + frames * length
        for frame in 0..<frames {
            let row = frameRows + frame * length
            let source = samples.baseAddress! + frame * Self.frameShift
            var sum: Float = 0
            for n in 0..<length { sum += source[n] }
            let mean = sum / Float(length)
            for n in 0..<length { row[n] = source[n] - mean }
            // Pre-emphasis, from the end so each sample uses its unmodified predecessor; the first uses itself.
            for n in stride(from: length - 1, to: 0, by: -1) { row[n] -= 0.97 * row[n - 1] }
            row[0] -= 0.97 * row[0]
        }
        BLAS.gemm(m: frames, n: columns, k: length, a: frameRows, lda: length, b: basis.pointer, ldb: columns,
                  transposeB: false, c: spectra, ldc: columns)
        // Power, in place: bin k's power at column k.
        for frame in 0..<frames {
            let row = spectra + frame * columns
            for k in 0..<Self.spectrumBins { row[k] = row[2 * k] * row[2 * k] + row[2 * k + 1] * row[2 * k + 1] }
        }
        BLAS.gemm(m: frames, n: Self.bins, k: Self.spectrumBins, a: spectra, lda: columns, b: filters.pointer,
                  ldb: Self.bins, transposeB: false, c: output, ldc: Self.bins)
        for index in 0..<(frames * Self.bins) { output[index] = Float.log(Swift.max(output[index], Float.ulpOfOne)) }
    }
}
