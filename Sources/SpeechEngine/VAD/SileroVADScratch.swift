/// Working memory for the Silero VAD forward pass on up to `maxChunks` chunks at once, allocated once per stream.
final class SileroVADScratch {
    let maxChunks: Int
    /// Two activation buffers used in turn, and the im2col buffer.
    let a: UnsafeMutablePointer<Float>, b: UnsafeMutablePointer<Float>, columns: UnsafeMutablePointer<Float>

    init(maxChunks: Int) {
        self.maxChunks = maxChunks
        let frames = maxChunks * SileroVADWeights.framesPerChunk
        // Largest activations: STFT frames / spectrum (258 per frame); largest im2col: 3·129 per frame.
        a = .allocate(capacity: frames * 258)
        b = .allocate(capacity: frames * 258)
        columns = .allocate(capacity: frames * 3 * 129)
        for (pointer, count) in [(a, frames * 258), (b, frames * 258), (columns, frames * 3 * 129)] {
            pointer.initialize(repeating: 0, count: count)
        }
    }

    deinit {
        a.deallocate()
        b.deallocate()
        columns.deallocate()
    }
}
