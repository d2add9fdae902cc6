/// Settings that turn per-chunk speech probabilities into speech regions (sensitivity levels map onto these).
public struct SpeechSegmentationOptions: Sendable, Equatable {
    /// A chunk at or above this probability starts (or continues) speech.
    public var threshold: Float
    /// Inside speech, a chunk below this probability counts as silence (hysteresis); default `threshold − 0.15`.
    public var negativeThreshold: Float
    /// Regions shorter than this (before padding), in seconds, are dropped.
    public var minSpeechDuration: Double
    /// Silence must last this long, in seconds, to end a region.
    public var minSilenceDuration: Double
    /// Seconds added before and after each region (never overlapping the neighbour's).
    public var speechPad: Double
    /// Longer regions are cut at their least speech-like chunk; `nil` for no limit.
    public var maxSpeechDuration: Double?

    public init(threshold: Float = 0.5, negativeThreshold: Float? = nil, minSpeechDuration: Double = 0.25,
                minSilenceDuration: Double = 0.1, speechPad: Double = 0.03, maxSpeechDuration: Double? = nil) {
        self.threshold = threshold
        self.negativeThreshold = negativeThreshold ?? max(threshold - 0.15, 0.01)
        self.minSpeechDuration = minSpeechDuration
        self.minSilenceDuration = minSilenceDuration
        self.speechPad = speechPad
        self.maxSpeechDuration = maxSpeechDuration
    }
}

/// A stretch of speech, in samples at 16 kHz from the start of the audio.
public struct SpeechRegion: Sendable, Equatable, CustomStringConvertible {
    public var samples: Range<Int>
    public var start: Double { Double(samples.lowerBound) / Double(VoiceActivityDetection.sampleRate) }
    public var end: Double { Double(samples.upperBound) / Double(VoiceActivityDetection.sampleRate) }
    public var duration: Double { end - start }

    public init(samples: Range<Int>) { self.samples = samples }
    public var description: String { "\(start)–\(end) s" }
}
