/// Whisper's log-mel front end over a whole recording, computed window by window.
///
/// As the reference: 160 zeros appended, frames of 400 samples every 160 centred with reflection at
/// the edges, Hann window, power spectrum, mel filters, `log10(max(x, 1e-10))`, clamped to 8 below the
/// recording's maximum, then `(x + 4) / 4`. The maximum is found in a first pass; windows are then
/// computed on demand, so memory does not grow with the recording's length.
final class LogMelSpectrogram {
    static let hop = 160, nFFT = 400, windowFrames = 3000
    private static let bins = nFFT / 2 + 1

    let melBins: Int
    /// Frames of content (`samples / 160`), the reference's `content_frames`.
    let contentFrames: Int
    private let samples: [Float]
    private let filters: Tensor
    private let basis: Tensor          // [400, 2·201]: windowed cos | sin

    /// The constant matrices of the front end, built once and shared by every spectrogram.
    struct Tables: Sendable {
        let filters: Tensor
        let basis: Tensor
        init(melBins: Int) {
            filters = MelFilterBank.make(melBins: melBins)
            basis = LogMelSpectrogram.makeBasis()
        }
    }
    private var floor: Float = 0        // global max − 8
    private let frameBuffer = Buffer(), spectrumBuffer = Buffer(), powerBuffer = Buffer()

    init(samples: [Float], tables: Tables) {
        self.samples = samples
        self.melBins = tables.filters.shape[0]
        filters = tables.filters
        basis = tables.basis
        let totalFrames = (samples.count + Self.hop) / Self.hop
        contentFrames = totalFrames - 1
        // First pass: the maximum over every frame the reference computes.
        var maximum = -Float.infinity
        let chunk = Self.windowFrames
        let scratch = Buffer(capacity: chunk * melBins)
        var start = 0
        while start < totalFrames {
            let count = min(chunk, totalFrames - start)
            computeLog10(frames: start..<(start + count), into: scratch.pointer)
            maximum = Swift.max(maximum, Vector.max(scratch.pointer, count: count * melBins))
            start += count
        }
        floor = maximum - 8
    }

    /// Fills `output` (`[3000, melBins]`, time-major) with normalised frames `start ..< start+count`
    /// followed by zeros, as the reference pads a window.
    func window(start: Int, count: Int, into output: UnsafeMutablePointer<Float>) {
        let n = min(count, Self.windowFrames)
        computeLog10(frames: start..<(start + n), into: output)
        let lowest = SIMD16<Float>(repeating: floor)
        var i = 0, total = n * melBins
        while i + 16 <= total {
            var v = Vector.load(output + i)
            v = v.replacing(with: lowest, where: v .< lowest)
            Vector.store((v + 4) * 0.25, output + i)
            i += 16
        }
        while i < total { output[i] = (Swift.max(output[i], floor) + 4) * 0.25; i += 1 }
        (output + total).initialize(repeating: 0, count: (Self.windowFrames - n) * melBins)
    }

    /// `log10(max(mel, 1e-10))` of frames in `range` (time-major), before clamping.
    private func computeLog10(frames range: Range<Int>, into output: UnsafeMutablePointer<Float>) {
        let count = range.count
        guard count > 0 else { return }
        let nFFT = Self.nFFT, bins = Self.bins
        let frames = frameBuffer.reserve(count * nFFT)
        let padded = samples.count + Self.hop   // the signal with its 160 appended zeros
        samples.withUnsafeBufferPointer { x in
            for (row, frame) in range.enumerated() {
                let destination = frames + row * nFFT
                let first = frame * Self.hop - nFFT / 2
                if first >= 0 && first + nFFT <= x.count {
                    destination.update(from: x.baseAddress! + first, count: nFFT)
                    continue
                }
                for n in 0..<nFFT {
                    var i = first + n
                    // numpy "reflect" padding (mirror without repeating the edge), repeated if needed.
                    while i < 0 || i >= padded {
                        if i < 0 { i = -i }
                        if i >= padded { i = 2 * (padded - 1) - i }
                        if padded == 1 { i = 0 }
                    }
                    destination[n] = i < x.count ? x[i] : 0
                }
            }
        }
        let spectrum = spectrumBuffer.reserve(count * 2 * bins)
        BLAS.gemm(m: count, n: 2 * bins, k: nFFT, a: frames, lda: nFFT, b: basis.pointer, ldb: 2 * bins,
                  transposeB: false, c: spectrum, ldc: 2 * bins)
        let power = powerBuffer.reserve(count * bins)
        for row in 0..<count {
            let s = spectrum + row * 2 * bins, p = power + row * bins
            for k in 0..<bins { p[k] = s[k] * s[k] + s[bins + k] * s[bins + k] }
        }
        BLAS.gemm(m: count, n: melBins, k: bins, a: power, lda: bins, b: filters.pointer, ldb: bins,
                  transposeB: true, c: output, ldc: melBins)
        for i in 0..<(count * melBins) { output[i] = libmLog10(Swift.max(output[i], 1e-10)) }
    }

    /// The real DFT as a matrix: column k is `w[n]·cos(2πkn/N)`, column `bins + k` is `−w[n]·sin(2πkn/N)`.
    fileprivate static func makeBasis() -> Tensor {
        let bins = Self.bins
        return Tensor(shape: [nFFT, 2 * bins]) { out in
            for n in 0..<nFFT {
                let window = Float(0.5 - 0.5 * libmCos(2 * Double.pi * Double(n) / Double(nFFT)))
                for k in 0..<bins {
                    let angle = 2 * Double.pi * Double((k * n) % nFFT) / Double(nFFT)
                    out[n * 2 * bins + k] = window * Float(libmCos(angle))
                    out[n * 2 * bins + bins + k] = -window * Float(libmSin(angle))
                }
            }
        }
    }
}
