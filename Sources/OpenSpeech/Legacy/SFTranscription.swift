import Foundation

/// A textual representation of speech, as Apple's `SFTranscription`: the whole text and its words.
public final class SFTranscription: NSObject, Sendable {
    /// The text, formatted for display (punctuated when the request's `addsPunctuation` is set).
    public let formattedString: String
    /// The words of `formattedString`, with their times and confidences.
    public let segments: [SFTranscriptionSegment]

    /// A transcription of `formattedString` whose words are `segments`. Apple's has no public initializer.
    public init(formattedString: String, segments: [SFTranscriptionSegment]) {
        self.formattedString = formattedString
        self.segments = segments
    }

    /// Words per minute over the speech (deprecated by Apple in favour of `SFSpeechRecognitionMetadata`).
    public var speakingRate: Double { SFSpeechRecognitionMetadata(segments: segments)?.speakingRate ?? 0 }
    /// The mean pause between words, in seconds (deprecated by Apple in favour of `SFSpeechRecognitionMetadata`).
    public var averagePauseDuration: TimeInterval {
        SFSpeechRecognitionMetadata(segments: segments)?.averagePauseDuration ?? 0
    }

    /// The formatted text.
    public override var description: String { formattedString }
}

/// One word of a transcription, as Apple's `SFTranscriptionSegment`.
public final class SFTranscriptionSegment: NSObject, Sendable {
    /// The word as it appears in the transcription's `formattedString`.
    public let substring: String
    /// Where `substring` is in `formattedString` (UTF-16 offsets, as `NSString` counts them).
    public let substringRange: NSRange
    /// The word's start, in seconds from the start of the request's audio.
    public let timestamp: TimeInterval
    /// The word's length in seconds.
    public let duration: TimeInterval
    /// The model's confidence in the word, 0 to 1; 0 in partial results, as Apple's.
    public let confidence: Float
    /// Other words the model considered here, most likely first.
    public let alternativeSubstrings: [String]

    /// A word with its place in the text, times, confidence and alternatives. Apple's has no public initializer.
    public init(substring: String, substringRange: NSRange, timestamp: TimeInterval, duration: TimeInterval,
                confidence: Float, alternativeSubstrings: [String] = []) {
        self.substring = substring
        self.substringRange = substringRange
        self.timestamp = timestamp
        self.duration = duration
        self.confidence = confidence
        self.alternativeSubstrings = alternativeSubstrings
    }

    /// Voice analytics of the word: nil, as `SFSpeechRecognitionMetadata.voiceAnalytics` (deprecated by Apple).
    public var voiceAnalytics: SFVoiceAnalytics? { nil }

    /// The word.
    public override var description: String { substring }
}
