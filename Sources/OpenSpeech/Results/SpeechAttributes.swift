import Foundation
import SpeechAudio

extension AttributeScopes {
    /// The attributes speech modules put on result text, as in Apple's Speech: the audio a run of text was
    /// heard in, and how confident the model was.
    public struct SpeechAttributes: AttributeScope {
        /// The audio time range a run of text was heard in.
        public let audioTimeRange: TimeRangeAttribute
        /// The model's confidence in a run of text, from 0 to 1.
        public let transcriptionConfidence: ConfidenceAttribute
        /// The language a detecting transcriber heard in the result. Not in Apple's API.
        public let detectedLanguage: DetectedLanguageAttribute
        /// Foundation's own attributes, so speech-scoped strings keep them.
        public let foundation: FoundationAttributes

        /// The audio time range of a run of text (`run.audioTimeRange`).
        public enum TimeRangeAttribute: AttributedStringKey {
            /// A time range in the audio given to the analyzer.
            public typealias Value = CMTimeRange
            /// The attribute's name in an attributed string.
            public static let name = "SpeechAudioTimeRange"
        }

        /// The model's confidence in a run of text, 0 to 1 (`run.transcriptionConfidence`).
        public enum ConfidenceAttribute: AttributedStringKey {
            /// A confidence from 0 (none) to 1 (certain).
            public typealias Value = Double
            /// The attribute's name in an attributed string.
            public static let name = "SpeechTranscriptionConfidence"
        }

        /// The language a transcriber that detects it (`EngineConfiguration.detectsLanguage`) heard in a result, as
        /// Whisper's code (`fr`, `ja`...), over the whole result text (`run.detectedLanguage`). Not in Apple's API.
        public enum DetectedLanguageAttribute: AttributedStringKey {
            /// Whisper's language code, such as `fr`.
            public typealias Value = String
            /// The attribute's name in an attributed string.
            public static let name = "OpenSpeechDetectedLanguage"
        }
    }

    /// The speech attribute scope, so `AttributedString` APIs can be given `\.speech`.
    public var speech: SpeechAttributes.Type { SpeechAttributes.self }
}

extension AttributeDynamicLookup {
    /// Lets runs read speech attributes as properties, such as `run.audioTimeRange`.
    public subscript<T: AttributedStringKey>(
        dynamicMember keyPath: KeyPath<AttributeScopes.SpeechAttributes, T>
    ) -> T {
        self[T.self]
    }
}

extension AttributedString {
    /// The range of text whose runs' audio time ranges intersect `timeRange`, from the first such run to the
    /// last; nil if none does. As in Apple's Speech.
    public func rangeOfAudioTimeRangeAttributes(intersecting timeRange: CMTimeRange) -> Range<AttributedString.Index>? {
        var lower: AttributedString.Index?
        var upper: AttributedString.Index?
        for run in runs {
            guard let range = run.audioTimeRange else { continue }
            let overlap = range.intersection(timeRange)
            let touches = overlap.isValid && (!overlap.isEmpty || range.isEmpty && timeRange.containsTime(range.start))
            if touches {
                if lower == nil { lower = run.range.lowerBound }
                upper = run.range.upperBound
            }
        }
        guard let lower, let upper else { return nil }
        return lower..<upper
    }
}
