import Foundation

/// The fallback detector when Silero VAD is not installed: a chunk's level in dBFS against an adaptive noise floor,
/// mapped to a probability with a logistic curve. Steady sounds (hum, noise, tones) become the floor and score low;
/// a chunk is scored by the median level of itself and the two before it, so a lone click (one loud chunk) is not
/// speech.
public final class EnergyVADStream: VoiceActivityDetector {
    /// Level above the noise floor, in dB, that scores 0.5.
    public var marginDecibels: Float = 10
    /// Levels below this score low whatever the floor (digital silence, near-silent rooms).
    public var absoluteFloorDecibels: Float = -55

    public private(set) var chunksProcessed = 0
    public var pendingSampleCount: Int { pending.count }

    private static let chunk = VoiceActivityDetection.chunkLength
    private var pending: [Float] = []
    private var noiseFloor: Float?
    /// The levels of the two chunks before the next one, oldest first (the first chunk stands in for missing ones).
    private var previousLevels: (Float, Float)?

    public init() { pending.reserveCapacity(Self.chunk) }

    public func process(_ samples: UnsafeBufferPointer<Float>, appendingTo probabilities: inout [Float]) {
        var index = 0
        // Finish a chunk begun by an earlier call, then score whole chunks in place.
        if !pending.isEmpty {
            let take = min(Self.chunk - pending.count, samples.count)
            pending.append(contentsOf: samples[0..<take])
            index = take
            guard pending.count == Self.chunk else { return }
            probabilities.append(pending.withUnsafeBufferPointer { score($0.baseAddress!) })
            pending.removeAll(keepingCapacity: true)
        }
        while index + Self.chunk <= samples.count {
            probabilities.append(score(samples.baseAddress! + index))
            index += Self.chunk
        }
        pending.append(contentsOf: samples[index...])
    }

    public func finish() -> Float? {
        guard !pending.isEmpty else { return nil }
        pending.append(contentsOf: repeatElement(0, count: Self.chunk - pending.count))
        let probability = pending.withUnsafeBufferPointer { score($0.baseAddress!) }
        pending.removeAll(keepingCapacity: true)
        return probability
    }

    public func reset() {
        pending.removeAll(keepingCapacity: true)
        noiseFloor = nil
        previousLevels = nil
        chunksProcessed = 0
    }

    private func score(_ samples: UnsafePointer<Float>) -> Float {
        var sum = SIMD16<Float>()
        for i in stride(from: 0, to: Self.chunk, by: 16) {
            let v = Vector.load(samples + i)
            sum += v * v
        }
        let level = max(10 * log10(sum.sum() / Float(Self.chunk) + 1e-12), -120)
        // The floor follows quieter chunks quickly and louder ones slowly (about 6 s).
        let floor = noiseFloor.map { level < $0 ? $0 + 0.5 * (level - $0) : $0 + 0.005 * (level - $0) } ?? level
        noiseFloor = floor
        chunksProcessed += 1
        let threshold = max(floor + marginDecibels, absoluteFloorDecibels)
        var median = level
        if let (a, b) = previousLevels { median = max(min(a, b), min(max(a, b), level)) }
        previousLevels = (previousLevels?.1 ?? level, level)
        return 1 / (1 + exp(-(median - threshold) / 2))
    }
}
