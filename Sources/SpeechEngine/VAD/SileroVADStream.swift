import Foundation

/// Silero VAD over a stream: keeps the LSTM state and the 64-sample context across chunks and runs whatever
/// whole chunks are buffered as one batch. Allocates only at creation.
public final class SileroVADStream: VoiceActivityDetector {
    public let model: SileroVAD
    public private(set) var chunksProcessed = 0
    public var pendingSampleCount: Int { buffered }

    private static let chunk = SileroVADWeights.chunkLength, context = SileroVADWeights.contextLength
    private let batchChunks: Int
    private let scratch: SileroVADScratch
    /// `context` samples preceding the pending ones, then `buffered` pending samples; room for a whole batch.
    private let buffer: UnsafeMutablePointer<Float>
    private var buffered = 0
    private let state: UnsafeMutablePointer<Float>
    private let output: UnsafeMutablePointer<Float>
    private var h: UnsafeMutablePointer<Float> { state }
    private var c: UnsafeMutablePointer<Float> { state + SileroVADWeights.hiddenSize }

    init(model: SileroVAD, batchChunks: Int) {
        self.model = model
        self.batchChunks = max(1, batchChunks)
        scratch = SileroVADScratch(maxChunks: self.batchChunks)
        let capacity = Self.context + self.batchChunks * Self.chunk
        buffer = .allocate(capacity: capacity)
        buffer.initialize(repeating: 0, count: capacity)
        state = .allocate(capacity: 2 * SileroVADWeights.hiddenSize)
        state.initialize(repeating: 0, count: 2 * SileroVADWeights.hiddenSize)
        output = .allocate(capacity: self.batchChunks)
        output.initialize(repeating: 0, count: self.batchChunks)
    }

    deinit {
        buffer.deallocate()
        state.deallocate()
        output.deallocate()
    }

    public func process(_ samples: UnsafeBufferPointer<Float>, appendingTo probabilities: inout [Float]) {
        guard var source = samples.baseAddress else { return }
        var remaining = samples.count
        let room = batchChunks * Self.chunk
        while remaining > 0 {
            let take = min(remaining, room - buffered)
            (buffer + Self.context + buffered).update(from: source, count: take)
            buffered += take
            source += take
            remaining -= take
            let chunks = buffered / Self.chunk
            if chunks == batchChunks || (remaining == 0 && chunks > 0) {
                run(chunks: chunks, appendingTo: &probabilities)
            }
        }
    }

    public func finish() -> Float? {
        guard buffered > 0 else { return nil }
        (buffer + Self.context + buffered).update(repeating: 0, count: Self.chunk - buffered)
        buffered = Self.chunk
        var probabilities: [Float] = []
        run(chunks: 1, appendingTo: &probabilities)
        return probabilities.first
    }

    public func reset() {
        buffer.update(repeating: 0, count: Self.context)
        buffered = 0
        state.update(repeating: 0, count: 2 * SileroVADWeights.hiddenSize)
        chunksProcessed = 0
    }

    /// Scores the first `chunks` buffered chunks, then moves the last `context` samples they end with, and the
    /// samples after them, to the front.
    private func run(chunks: Int, appendingTo probabilities: inout [Float]) {
        model.weights.run(windows: buffer, count: chunks, h: h, c: c, scratch: scratch, probabilities: output)
        probabilities.append(contentsOf: UnsafeBufferPointer(start: output, count: chunks))
        chunksProcessed += chunks
        let consumed = chunks * Self.chunk
        memmove(buffer, buffer + consumed, (Self.context + buffered - consumed) * MemoryLayout<Float>.stride)
        buffered -= consumed
    }
}
