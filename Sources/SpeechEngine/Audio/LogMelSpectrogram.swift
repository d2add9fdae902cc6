/// Whisper's log-mel front end, computed window by window over a whole recording or over a stream whose samples
/// arrive over time.
///
/// As the reference: 160 zeros appended at the end, frames of 400 samples every 160 centred with reflection at
/// the edges, Hann window, power spectrum, mel filters, `log10(max(x, 1e-10))`, clamped to 8 below a maximum, then
/// `(x + 4) / 4`. Over a whole recording (`init(samples:tables:)`) the maximum is the recording's, found in a first
/// pass, as faster-whisper computes it. Over a stream (`init(streamingWith:)`) it is the maximum of every frame from
/// the start through the end of the window asked for: a function of the audio alone, whatever the pieces it came in.
/// Frames are computed on demand, and a stream keeps only the samples still needed, so memory does not grow with
/// the recording's length.
final class LogMelSpectrogram {
    static let hop = 160, nFFT = 400, windowFrames = 3000
    private static let bins = nFFT / 2 + 1

    let melBins: Int
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

    /// Samples from timeline sample `origin` on (a stream drops those no frame still needs).
    private var samples: [Float]
    private var origin = 0
    /// Whether the last sample has arrived (always, over a whole recording).
    private(set) var ended: Bool
    /// The maximum of frames `0..<maximumThrough`, and, once fixed (a whole recording), the floor every window uses.
    private var maximum = -Float.infinity, maximumThrough = 0
    private var fixedFloor: Float?
    /// Maxima of chunks of frames measured for windows encoded ahead (`maximumAhead`), for `runningMaximum` to take
    /// instead of measuring them again (each the maximum of exactly the frames it would measure).
    private var chunkMaxima: [Range<Int>: Float] = [:]
    private let frameBuffer = Buffer(), spectrumBuffer = Buffer(), powerBuffer = Buffer(), scratch = Buffer()

    /// A whole recording: the floor is 8 below the recording's maximum.
    init(samples: [Float], tables: Tables) {
        self.samples = samples
        ended = true
        melBins = tables.filters.shape[0]
        filters = tables.filters
        basis = tables.basis
        fixedFloor = runningMaximum(through: totalFrames) - 8
    }

    /// A stream: append samples as they arrive, `finish()` after the last.
    init(streamingWith tables: Tables) {
        samples = []
        ended = false
        melBins = tables.filters.shape[0]
        filters = tables.filters
        basis = tables.basis
    }

    /// Samples received so far.
    var sampleCount: Int { origin + samples.count }

    /// Frames the reference computes for the samples received (`samples / 160 + 1`, the last over the padding).
    private var totalFrames: Int { (sampleCount + Self.hop) / Self.hop }

    /// Frames of content (`samples / 160`), the reference's `content_frames`, of the samples received so far.
    var contentFrames: Int { totalFrames - 1 }

    /// Frames whose samples have all arrived: all of them once the stream ended; before, those ending before the
    /// last sample received (a frame spans 200 samples after its centre).
    var completeFrames: Int {
        ended ? contentFrames : max(0, (sampleCount - Self.nFFT / 2) / Self.hop)
    }

    func append(_ newSamples: UnsafeBufferPointer<Float>) {
        precondition(!ended, "LogMelSpectrogram: samples appended after the end of the stream")
        samples.append(contentsOf: newSamples)
    }

    func finish() { ended = true }

    /// Takes out the samples received from `position` on (not before the samples kept) and returns them.
    func truncate(to position: Int) -> [Float] {
        let cut = min(max(position, origin), sampleCount) - origin
        let rest = Array(samples[cut...])
        samples.removeSubrange(cut...)
        chunkMaxima.removeAll()
        return rest
    }

    /// Lets go of samples no frame from `frame` on needs.
    func discard(before frame: Int) {
        let keepFrom = min(max(0, frame * Self.hop - Self.nFFT / 2), sampleCount)
        guard keepFrom > origin else { return }
        samples.removeFirst(keepFrom - origin)
        origin = keepFrom
    }

    /// Fills `output` (`[3000, melBins]`, time-major) with normalised frames `start ..< start+count` followed by
    /// zeros, as the reference pads a window. The frames must be complete (`completeFrames`).
    /// `ahead`: a window encoded before the decoder reaches it (`EncoderBatchPlan`): its floor is the same, but the
    /// running maximum is left where it was, so windows decoded before it see what they would without it.
    func window(start: Int, count: Int, into output: UnsafeMutablePointer<Float>, ahead: Bool = false) {
        let n = min(count, Self.windowFrames)
        precondition(start + n <= completeFrames || ended, "LogMelSpectrogram: window past the audio received")
        // A stream's last window counts the padding frame too, as the whole recording's maximum does.
        let through = ended && start + n >= contentFrames ? totalFrames : start + n
        let floor = fixedFloor ?? ((ahead ? maximumAhead(through: through) : runningMaximum(through: through)) - 8)
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

    /// The maximum of frames `0..<frame`, extending the running maximum over frames not yet measured.
    private func runningMaximum(through frame: Int) -> Float {
        let chunk = Self.windowFrames
        let out = scratch.reserve(chunk * melBins)
        while maximumThrough < frame {
            let count = min(chunk, frame - maximumThrough)
            let range = maximumThrough..<(maximumThrough + count)
            if let known = chunkMaxima[range] {
                maximum = Swift.max(maximum, known)
            } else {
                computeLog10(frames: range, into: out)
                maximum = Swift.max(maximum, Vector.max(out, count: count * melBins))
            }
            maximumThrough += count
        }
        if !chunkMaxima.isEmpty { chunkMaxima = chunkMaxima.filter { $0.key.lowerBound >= maximumThrough } }
        return maximum
    }

    /// What `runningMaximum(through:)` would return, without extending the running maximum (the same chunks of
    /// frames, so the same values).
    private func maximumAhead(through frame: Int) -> Float {
        let chunk = Self.windowFrames
        let out = scratch.reserve(chunk * melBins)
        var value = maximum, measured = maximumThrough
        while measured < frame {
            let count = min(chunk, frame - measured)
            let range = measured..<(measured + count)
            let chunkMaximum: Float
            if let known = chunkMaxima[range] {
                chunkMaximum = known
            } else {
                computeLog10(frames: range, into: out)
                chunkMaximum = Vector.max(out, count: count * melBins)
                chunkMaxima[range] = chunkMaximum
            }
            value = Swift.max(value, chunkMaximum)
            measured += count
        }
        return value
    }

    /// `log10(max(mel, 1e-10))` of frames in `range` (time-major), before clamping.
    private func computeLog10(frames range: Range<Int>, into output: UnsafeMutablePointer<Float>) {
        let count = range.count
        guard count > 0 else { return }
        let nFFT = Self.nFFT, bins = Self.bins
        let frames = frameBuffer.reserve(count * nFFT)
        let received = sampleCount
        let padded = received + Self.hop   // the signal with its 160 appended zeros (reached only once ended)
        let origin = origin
        samples.withUnsafeBufferPointer { x in
            for (row, frame) in range.enumerated() {
                let destination = frames + row * nFFT
                let first = frame * Self.hop - nFFT / 2
                if first >= origin && first + nFFT <= received {
                    destination.update(from: x.baseAddress! + (first - origin), count: nFFT)
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
                    destination[n] = i < received ? x[i - origin] : 0
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
