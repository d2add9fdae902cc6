import CVectorKernels
import Foundation

/// pyannote segmentation-3.0 (PyanNet) on the engine's numerics: 10 s windows of 16 kHz audio in, per frame
/// (every 270 samples) the log-probabilities of 7 powerset classes out: nobody, one of three local speakers, or two
/// of them at once (`PowersetActivity`).
///
/// SincNet (the waveform's instance norm; 80 parametric band-pass filters every 10 samples, magnitude, max-pool 3,
/// instance norm, leaky ReLU; two convolutions of kernel 5, each with max-pool 3, instance norm and leaky ReLU) gives
/// 60 features per frame; a 4-layer bidirectional LSTM of 128 units per direction, two linear layers of 128 with
/// leaky ReLU and a 7-class classifier with log-softmax give the classes.
///
/// Time-major throughout: a sequence is `[frames × channels]`. Every convolution is a matrix product over gathered
/// taps (a row's taps are consecutive floats of a time-major input, so gathering is a copy; the sinc filters' are the
/// sums and differences of the tap pairs about their centre, which halves the products), every LSTM input projection
/// one product over all windows of a group (both directions at once), and each step of the recurrence one product of
/// all the group's windows by the direction's hidden weights. A window's rows are padded to a
/// multiple of `BLAS.rowBlock`, so every BLAS product computes a window's rows in the same calls whatever the group,
/// and the recurrence's kernels compute each row alone: the results are a function of each window alone, whatever
/// `threads` and the number of windows a call is given (which go through in groups of `batch`).
package final class SpeakerSegmentationModel: Sendable {
    typealias Weights = SegmentationWeights
    let weights: SegmentationWeights

    /// Samples of the windows the model was trained on (10 s at 16 kHz).
    package static let windowSamples = 160_000
    /// Samples between frames, the samples a frame covers, and the offset of a frame's centre from its first
    /// sample (the receptive field of the SincNet stack): frame `i` covers `[270 i, 270 i + 991)`.
    package static let frameStep = 270, frameDuration = 991, frameCenter = 495
    /// Powerset classes per frame.
    package static let classes = SegmentationWeights.classes
    /// Windows per group: the LSTM's steps multiply this many windows' states at once.
    static let batch = 8
    /// Convolution rows computed per call: a multiple of the max-pool's 3 and of `BLAS.rowBlock` (so computing a
    /// convolution chunk by chunk gives the bits of one product), small enough for its gathered taps to stay in the
    /// L2 cache and for a window's chunks to spread evenly over threads.
    static let chunkRows = 3 * BLAS.rowBlock

    package init(url: URL) throws {
        weights = try SegmentationWeights(url: url)
    }

    /// Rows out of each convolution and of its max-pool for a window of `samples`.
    static func stages(samples: Int) -> [(convolution: Int, pooled: Int)] {
        var stages: [(Int, Int)] = []
        var length = samples < Weights.sincTaps ? 0 : (samples - Weights.sincTaps) / Weights.sincStride + 1
        for stage in 0..<3 {
            if stage > 0 { length = Swift.max(0, length - (Weights.taps - 1)) }
            stages.append((length, length / Weights.pool))
            length /= Weights.pool
        }
        return stages
    }

    /// Frames the model gives for a window of `samples` (589 for 10 s).
    package static func frameCount(samples: Int) -> Int { stages(samples: samples)[2].pooled }

    /// The log-probabilities of the 7 powerset classes at every frame of `count` windows laid one after another in
    /// `windows` (each `windows.count / count` samples, 160,000 for the model's 10 s, float in [-1, 1));
    /// `[count × frames × 7]`, `frames = frameCount(samples:)`.
    package func logProbabilities(windows: UnsafeBufferPointer<Float>, count: Int, threads: Int = 1) -> [Float] {
        guard count > 0 else { return [] }
        precondition(windows.count % count == 0, "windows of equal length")
        let samples = windows.count / count
        let frames = Self.frameCount(samples: samples)
        precondition(frames > 0, "a window of \(samples) samples is too short for a frame")
        let parallel = Parallel(threads: threads)
        let rows = (frames + BLAS.rowBlock - 1) / BLAS.rowBlock * BLAS.rowBlock
        let scratch = Scratch(threads: parallel.threads)
        var result = [Float](repeating: 0, count: count * frames * Self.classes)
        for first in stride(from: 0, to: count, by: Self.batch) {
            let group = Swift.min(Self.batch, count - first)
            let features = scratch.features.reserve(group * rows * Weights.channels)
            front(windows.baseAddress! + first * samples, samples: samples, group: group, rows: rows,
                  into: features, scratch: scratch, parallel: parallel)
            let sequence = recurrent(features, group: group, frames: frames, rows: rows, scratch: scratch, parallel: parallel)
            result.withUnsafeMutableBufferPointer { result in
                head(sequence, group: group, frames: frames, rows: rows,
                     into: result.baseAddress! + first * frames * Self.classes, scratch: scratch, parallel: parallel)
            }
        }
        return result
    }

    /// SincNet's output for one window, `[frames × 60]`: what the LSTM reads (for tests).
    func sincNetFeatures(window: UnsafeBufferPointer<Float>, threads: Int = 1) -> [Float] {
        let frames = Self.frameCount(samples: window.count)
        let parallel = Parallel(threads: threads)
        let scratch = Scratch(threads: parallel.threads)
        var features = [Float](repeating: 0, count: frames * Weights.channels)
        features.withUnsafeMutableBufferPointer { features in
            front(window.baseAddress!, samples: window.count, group: 1, rows: frames, into: features.baseAddress!,
                  scratch: scratch, parallel: parallel)
        }
        return features
    }

    /// Scratch of one call: reused from group to group, never shared between calls.
    final class Scratch {
        let features = Buffer(), projection = Buffer(), outputs = (Buffer(), Buffer()), cells = Buffer()
        let hidden = (Buffer(), Buffer())
        /// One per window computed at once, each with one chunk buffer pair per thread working on its window.
        let fronts: [Front]

        final class Front {
            let waveform = Buffer(), pooled = (Buffer(), Buffer())
            let chunks: [(taps: Buffer, rows: Buffer)]
            init(threads: Int) { chunks = (0..<threads).map { _ in (Buffer(), Buffer()) } }
        }

        init(threads: Int) { fronts = (0..<threads).map { _ in Front(threads: threads) } }
    }

    // MARK: SincNet

    /// The SincNet features of `group` windows of `samples` from `windows`: each window's `frames` rows of 60 at
    /// `output + window · rows · 60`. Windows go to threads of their own; a window alone takes all the threads.
    private func front(_ windows: UnsafePointer<Float>, samples: Int, group: Int, rows: Int,
                       into output: UnsafeMutablePointer<Float>, scratch: Scratch, parallel: Parallel) {
        let slices = parallel.sliceCount(of: group, minimumSlice: 1)
        let inner = Parallel(threads: parallel.threads / slices)
        let stages = Self.stages(samples: samples)
        parallel.forEachSlice(of: group, minimumSlice: 1) { slice, range in
            let front = scratch.fronts[slice]
            for window in range {
                sincNet(windows + window * samples, samples: samples, stages: stages,
                        into: output + window * rows * Weights.channels, scratch: front, parallel: inner)
            }
        }
    }

    /// One window through SincNet: `stages[2].pooled` rows of 60 features at `output`.
    private func sincNet(_ audio: UnsafePointer<Float>, samples count: Int, stages: [(convolution: Int, pooled: Int)],
                         into output: UnsafeMutablePointer<Float>, scratch: Scratch.Front, parallel: Parallel) {
        // The waveform's instance norm, and the normalized waveform reversed (`sincConvolvePool`'s folded taps).
        let waveform = scratch.waveform.reserve(2 * count)
        var sum = 0.0
        for i in 0..<count { sum += Double(audio[i]) }
        let mean = sum / Double(count)
        var squares = 0.0
        for i in 0..<count { let d = Double(audio[i]) - mean; squares += d * d }
        let scale = Double(weights.waveformScale) / (squares / Double(count) + 1e-5).squareRoot()
        let shift = Double(weights.waveformShift) - mean * scale
        let a = Float(scale), b = Float(shift)
        for i in 0..<count { waveform[i] = audio[i] * a + b }
        for i in 0..<count { waveform[2 * count - 1 - i] = waveform[i] }

        let filters = Weights.sincFilters, channels = Weights.channels
        let first = scratch.pooled.0.reserve(stages[0].pooled * filters)
        sincConvolvePool(waveform, samples: count, rows: stages[0].convolution, into: first, chunks: scratch.chunks,
                         parallel: parallel)
        normalize(first, rows: stages[0].pooled, channels: filters, weights.normalizations[0])
        let second = scratch.pooled.1.reserve(stages[1].pooled * channels)
        convolvePool(first, step: filters, rows: stages[1].convolution, weights.convolutions[0],
                     into: second, chunks: scratch.chunks, parallel: parallel)
        normalize(second, rows: stages[1].pooled, channels: channels, weights.normalizations[1])
        convolvePool(second, step: channels, rows: stages[2].convolution, weights.convolutions[1],
                     into: output, chunks: scratch.chunks, parallel: parallel)
        normalize(output, rows: stages[2].pooled, channels: channels, weights.normalizations[2])
    }

    /// The sinc filters every 10 samples of the normalized `waveform` (`samples` long, then reversed), folded
    /// (`SegmentationWeights.sincHalves`): row `t`'s sums and differences of the tap pairs about its centre read two
    /// ascending runs, the waveform from `10 t` and its reverse from `samples − 251 − 10 t`. Then the magnitude and
    /// a max-pool of 3: `rows / 3` rows of 80 at `output`. In chunks of `chunkRows` rows spread over `parallel`.
    private func sincConvolvePool(_ waveform: UnsafePointer<Float>, samples: Int, rows: Int,
                                  into output: UnsafeMutablePointer<Float>, chunks: [(taps: Buffer, rows: Buffer)],
                                  parallel: Parallel) {
        let half = Weights.sincHalfWidth, width = 2 * half, filters = Weights.sincFilters, bands = filters / 2
        let reversed = waveform + samples, pool = Weights.pool
        let (even, odd) = weights.sincHalves
        Self.forEachPooledChunk(rows: rows, parallel: parallel) { slice, start, count in
            let taps = chunks[slice].taps.reserve(count * width)
            for r in 0..<count {
                let t = start + r
                let left = waveform + Weights.sincStride * t
                let right = reversed + (samples - Weights.sincTaps - Weights.sincStride * t)
                let sums = taps + r * width, differences = sums + half
                // Lanes past the 125 pairs read the centre's neighbourhood: finite, and weighted 0 (or, the
                // centre's sum `2 x[125]`, by half its tap).
                for j in stride(from: 0, to: half, by: 16) {
                    let x = Vector.load(left + j), y = Vector.load(right + j)
                    Vector.store(x + y, sums + j)
                    Vector.store(x - y, differences + j)
                }
            }
            let y = chunks[slice].rows.reserve(count * filters)
            BLAS.gemm(m: count, n: bands, k: half, a: taps, lda: width, b: even.pointer, ldb: half, transposeB: true,
                      c: y, ldc: filters)
            BLAS.gemm(m: count, n: bands, k: half, a: taps + half, lda: width, b: odd.pointer, ldb: half,
                      transposeB: true, c: y + bands, ldc: filters)
            for p in 0..<(count / pool) {
                let source = y + p * pool * filters, destination = output + (start / pool + p) * filters
                for c in 0..<filters {
                    destination[c] = Swift.max(Swift.abs(source[c]),
                                               Swift.max(Swift.abs(source[filters + c]), Swift.abs(source[2 * filters + c])))
                }
            }
        }
    }

    /// A convolution of `rows` output rows whose row `t` reads the `convolution.width` floats at `input + t · step`,
    /// then a max-pool of 3 with stride 3: `rows / 3` rows of `convolution.outputs` at `output`. Computed in chunks of
    /// `chunkRows` rows spread over `parallel`.
    private func convolvePool(_ input: UnsafePointer<Float>, step: Int, rows: Int, _ convolution: Weights.Convolution,
                              into output: UnsafeMutablePointer<Float>, chunks: [(taps: Buffer, rows: Buffer)],
                              parallel: Parallel) {
        let pool = Weights.pool, width = convolution.width, outputs = convolution.outputs
        Self.forEachPooledChunk(rows: rows, parallel: parallel) { slice, start, count in
            let taps = chunks[slice].taps.reserve(count * width)
            for r in 0..<count { (taps + r * width).update(from: input + (start + r) * step, count: width) }
            let y = chunks[slice].rows.reserve(count * outputs)
            BLAS.linear(taps, rows: count, weight: convolution.weight, bias: convolution.bias, into: y)
            for p in 0..<(count / pool) {
                let source = y + p * pool * outputs, destination = output + (start / pool + p) * outputs
                for c in 0..<outputs {
                    destination[c] = Swift.max(source[c], Swift.max(source[outputs + c], source[2 * outputs + c]))
                }
            }
        }
    }

    /// The first `rows / 3 · 3` rows (whole max-pool groups) in chunks of `chunkRows` spread over `parallel`:
    /// `body(slice, first row, rows)` for each chunk, `slice` naming the thread's scratch.
    private static func forEachPooledChunk(rows: Int, parallel: Parallel,
                                           _ body: (_ slice: Int, _ start: Int, _ count: Int) -> Void) {
        let used = rows / Weights.pool * Weights.pool
        let chunkCount = (used + chunkRows - 1) / chunkRows
        parallel.forEachSlice(of: chunkCount, minimumSlice: 1) { slice, range in
            for chunk in range {
                let start = chunk * chunkRows
                body(slice, start, Swift.min(chunkRows, used - start))
            }
        }
    }

    /// In place instance norm of a `[rows × channels]` sequence (each channel's mean and biased variance over time,
    /// epsilon 1e-5; statistics in double precision), its affine parameters, then leaky ReLU.
    private func normalize(_ x: UnsafeMutablePointer<Float>, rows: Int, channels: Int, _ affine: Weights.Affine) {
        var sums = [Double](repeating: 0, count: channels), squares = [Double](repeating: 0, count: channels)
        for r in 0..<rows {
            let row = x + r * channels
            for c in 0..<channels { sums[c] += Double(row[c]) }
        }
        for c in 0..<channels { sums[c] /= Double(rows) }
        for r in 0..<rows {
            let row = x + r * channels
            for c in 0..<channels { let d = Double(row[c]) - sums[c]; squares[c] += d * d }
        }
        var scale = [Float](repeating: 0, count: channels), shift = scale
        for c in 0..<channels {
            let s = Double(affine.scale.pointer[c]) / (squares[c] / Double(rows) + 1e-5).squareRoot()
            scale[c] = Float(s)
            shift[c] = Float(Double(affine.shift.pointer[c]) - sums[c] * s)
        }
        for r in 0..<rows {
            let row = x + r * channels
            for c in 0..<channels { row[c] = Self.leaky(row[c] * scale[c] + shift[c]) }
        }
    }

    @inline(__always) static func leaky(_ x: Float) -> Float { x < 0 ? 0.01 * x : x }

    // MARK: LSTM

    /// The 4-layer bidirectional LSTM over `group` windows of `frames` steps (`rows` apart) of `features`: the last
    /// layer's outputs, `[group × rows × 256]` (forward then backward), in scratch.
    private func recurrent(_ features: UnsafeMutablePointer<Float>, group: Int, frames: Int, rows: Int,
                           scratch: Scratch, parallel: Parallel) -> UnsafeMutablePointer<Float> {
        let hidden = Weights.hiddenSize, gates = 4 * hidden, width = 2 * hidden
        let projection = scratch.projection.reserve(group * rows * 2 * gates)
        let outputs = (scratch.outputs.0.reserve(group * rows * width), scratch.outputs.1.reserve(group * rows * width))
        let cells = scratch.cells.reserve(2 * group * hidden)
        var input = UnsafePointer(features)
        var output = outputs.0
        for layer in weights.recurrent {
            BLAS.linear(input, rows: group * rows, weight: layer.input, bias: layer.bias, into: projection, parallel: parallel)
            cells.update(repeating: 0, count: 2 * group * hidden)
            let destination = output
            // The directions are independent, and so are the windows (the step's kernels compute each window's rows
            // alone): with more than two threads, each direction's windows are split in blocks of 4 rows.
            let blocks = (group + 3) / 4, parts = Swift.min(Swift.max(1, parallel.threads / 2), blocks)
            parallel.forEachSlice(of: 2 * parts, minimumSlice: 1) { _, tasks in
                for task in tasks {
                    let direction = task % 2, part = task / 2
                    let windows = (4 * (blocks * part / parts))..<Swift.min(group, 4 * (blocks * (part + 1) / parts))
                    run(direction: direction, layer.hidden[direction],
                        projection: projection + windows.lowerBound * rows * 2 * gates, group: windows.count,
                        frames: frames, rows: rows, cells: cells + (direction * group + windows.lowerBound) * hidden,
                        into: destination + windows.lowerBound * rows * width)
                }
            }
            input = UnsafePointer(output)
            output = output == outputs.0 ? outputs.1 : outputs.0
        }
        return UnsafeMutablePointer(mutating: input)
    }

    /// One direction of one LSTM layer over `group` windows: at each step one product of the previous step's hidden
    /// states of all the windows by the direction's hidden weights (`[128 × 512]`, transposed, packed) added to the
    /// step's input projections, then the cell. Both through the engine's own kernels, not BLAS: oneDNN sums a row
    /// differently as the number of rows changes, and each window's bits must not depend on its company.
    private func run(direction: Int, _ weights: Tensor, projection: UnsafeMutablePointer<Float>, group: Int, frames: Int,
                     rows: Int, cells: UnsafeMutablePointer<Float>, into output: UnsafeMutablePointer<Float>) {
        let hidden = Weights.hiddenSize, gates = 4 * hidden, width = 2 * hidden
        let projectionStride = rows * 2 * gates, outputStride = rows * width
        for step in 0..<frames {
            let t = direction == 0 ? step : frames - 1 - step
            let g = projection + t * 2 * gates + direction * gates
            if step > 0 {
                let previous = direction == 0 ? t - 1 : t + 1
                openspeech_vk_rows_product(output + previous * width + direction * hidden, outputStride, group, hidden,
                                           weights.pointer, gates, g, projectionStride, 1)
            }
            openspeech_vk_lstm_cell(g, projectionStride, group, hidden, cells, output + t * width + direction * hidden,
                                    outputStride)
        }
    }

    // MARK: Classifier

    /// The linear layers, the classifier and log-softmax over `sequence` (`[group × rows × 256]`): each window's
    /// `frames` rows of 7 log-probabilities, one after another at `output`.
    private func head(_ sequence: UnsafeMutablePointer<Float>, group: Int, frames: Int, rows: Int,
                      into output: UnsafeMutablePointer<Float>, scratch: Scratch, parallel: Parallel) {
        let total = group * rows, size = Weights.linearSize, classes = Self.classes
        let first = scratch.hidden.0.reserve(total * size), second = scratch.hidden.1.reserve(total * size)
        let (a, b) = (weights.linear[0], weights.linear[1])
        BLAS.linear(sequence, rows: total, weight: a.weight, bias: a.bias, into: first, parallel: parallel)
        for i in 0..<(total * size) { first[i] = Self.leaky(first[i]) }
        BLAS.linear(first, rows: total, weight: b.weight, bias: b.bias, into: second, parallel: parallel)
        for i in 0..<(total * size) { second[i] = Self.leaky(second[i]) }
        let logits = first
        BLAS.linear(second, rows: total, weight: weights.classifier.weight, bias: weights.classifier.bias,
                    into: logits, parallel: parallel)
        for window in 0..<group {
            for frame in 0..<frames {
                let source = logits + (window * rows + frame) * classes
                let destination = output + (window * frames + frame) * classes
                var largest = source[0]
                for k in 1..<classes { largest = Swift.max(largest, source[k]) }
                var sum: Float = 0
                for k in 0..<classes { sum += libmExpF(source[k] - largest) }
                let normalizer = largest + Float.log(sum)
                for k in 0..<classes { destination[k] = source[k] - normalizer }
            }
        }
    }
}
