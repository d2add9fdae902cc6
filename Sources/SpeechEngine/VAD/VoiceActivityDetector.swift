/// Speech probabilities of 16 kHz mono audio, one per 512-sample chunk (32 ms), fed in pieces of any size.
///
/// Implementations are stateful and owned by one task at a time (not `Sendable`): `SileroVADStream` runs the
/// Silero model, `EnergyVADStream` is the fallback when the model is not installed.
public protocol VoiceActivityDetector: AnyObject {
    /// Chunks scored since creation or the last `reset()`.
    var chunksProcessed: Int { get }
    /// Samples fed that do not yet fill a chunk.
    var pendingSampleCount: Int { get }
    /// Feeds samples and appends the probabilities of the chunks they complete (none if they complete none).
    func process(_ samples: UnsafeBufferPointer<Float>, appendingTo probabilities: inout [Float])
    /// At the end of the audio: scores the pending partial chunk padded with zeros, if there is one.
    func finish() -> Float?
    /// Forgets all audio and state, as if newly created.
    func reset()
}

extension VoiceActivityDetector {
    /// Feeds samples; returns the probabilities of the chunks they complete.
    public func process(_ samples: [Float]) -> [Float] {
        var probabilities: [Float] = []
        probabilities.reserveCapacity(samples.count / VoiceActivityDetection.chunkLength + 1)
        samples.withUnsafeBufferPointer { process($0, appendingTo: &probabilities) }
        return probabilities
    }

    /// The probabilities of a whole clip from a fresh state: one per chunk, the last chunk zero-padded.
    public func probabilities(of samples: [Float]) -> [Float] {
        reset()
        var probabilities = process(samples)
        if let last = finish() { probabilities.append(last) }
        reset()
        return probabilities
    }
}

/// Constants shared by every detector, and the choice between them.
public enum VoiceActivityDetection {
    /// The sample rate detectors take.
    public static let sampleRate = 16_000
    /// Samples per probability.
    public static let chunkLength = 512
    /// Seconds per probability (0.032).
    public static let chunkDuration = Double(chunkLength) / Double(sampleRate)

    /// A new detector: Silero's when `model` is given, else the energy fallback.
    public static func makeDetector(model: SileroVAD?) -> any VoiceActivityDetector {
        if let model { return model.makeStream() }
        return EnergyVADStream()
    }
}
