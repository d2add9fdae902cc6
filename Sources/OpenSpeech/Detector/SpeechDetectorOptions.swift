import SpeechEngine

extension SpeechDetector {
    /// How readily the detector calls audio speech: Apple's levels. Ours map onto the Silero VAD thresholds and the
    /// minimum speech and silence durations.
    public enum SensitivityLevel: Int, Sendable, Hashable, CaseIterable {
        /// Only clear speech: probability 0.7, at least 0.5 s of speech, 0.5 s of silence to end it.
        case low
        /// Silero's own defaults for the threshold (0.5) and minimum speech (0.25 s); 0.3 s of silence.
        case medium
        /// Faint or short speech too: probability 0.3, 0.1 s of speech, 0.5 s of silence to end it.
        case high
    }

    /// How readily the detector calls audio speech, as in Apple's Speech.
    public struct DetectionOptions: Sendable, Hashable {
        /// How readily audio is called speech.
        public var sensitivityLevel: SensitivityLevel

        /// Options with this sensitivity level.
        public init(sensitivityLevel: SensitivityLevel) {
            self.sensitivityLevel = sensitivityLevel
        }

        /// The segmentation settings this level stands for.
        var segmentation: SpeechSegmentationOptions {
            switch sensitivityLevel {
            case .low: SpeechSegmentationOptions(threshold: 0.7, minSpeechDuration: 0.5, minSilenceDuration: 0.5)
            case .medium: SpeechSegmentationOptions(threshold: 0.5, minSpeechDuration: 0.25, minSilenceDuration: 0.3)
            case .high: SpeechSegmentationOptions(threshold: 0.3, minSpeechDuration: 0.1, minSilenceDuration: 0.5)
            }
        }
    }
}
