import Foundation

/// A recognition result, as Apple's `SFSpeechRecognitionResult`: the whole text of the task so far, ranked
/// alternatives, and whether it is final.
///
/// As Apple's, a partial result holds all the text heard so far (not only the newest words), and the final result
/// holds the whole task's text, its words timed from the model's word alignment.
public final class SFSpeechRecognitionResult: NSObject, Sendable {
    /// The most likely transcription.
    public var bestTranscription: SFTranscription { transcriptions[0] }
    /// The transcriptions, most likely first (never empty).
    public let transcriptions: [SFTranscription]
    /// Whether recognition of the audio is complete: no later result follows.
    public let isFinal: Bool
    /// How the speech was spoken; in the final result only, as Apple's.
    public let speechRecognitionMetadata: SFSpeechRecognitionMetadata?

    /// A result with these transcriptions (at least one, most likely first). Apple's has no public initializer.
    public init(transcriptions: [SFTranscription], isFinal: Bool, speechRecognitionMetadata: SFSpeechRecognitionMetadata?) {
        precondition(!transcriptions.isEmpty, "a recognition result has at least one transcription")
        self.transcriptions = transcriptions
        self.isFinal = isFinal
        self.speechRecognitionMetadata = speechRecognitionMetadata
    }

    /// Whether the result is final or partial, and its best transcription's text.
    public override var description: String {
        "SFSpeechRecognitionResult(\(isFinal ? "final" : "partial"): \"\(bestTranscription.formattedString)\")"
    }
}

/// How the speech of a result was spoken, as Apple's `SFSpeechRecognitionMetadata`, from the words' times.
public final class SFSpeechRecognitionMetadata: NSObject, Sendable {
    /// Words per minute of speech.
    public let speakingRate: Double
    /// The mean pause between consecutive words, in seconds.
    public let averagePauseDuration: TimeInterval
    /// When the first word starts, in seconds from the start of the audio.
    public let speechStartTimestamp: TimeInterval
    /// From the first word's start to the last word's end, in seconds.
    public let speechDuration: TimeInterval
    /// Jitter, shimmer, pitch and voicing: nil in OpenSpeech (Apple computes them on its devices; ours does not).
    public let voiceAnalytics: SFVoiceAnalytics?

    /// Metadata with these measurements. Apple's has no public initializer.
    public init(speakingRate: Double, averagePauseDuration: TimeInterval, speechStartTimestamp: TimeInterval,
                speechDuration: TimeInterval, voiceAnalytics: SFVoiceAnalytics? = nil) {
        self.speakingRate = speakingRate
        self.averagePauseDuration = averagePauseDuration
        self.speechStartTimestamp = speechStartTimestamp
        self.speechDuration = speechDuration
        self.voiceAnalytics = voiceAnalytics
    }

    /// The metadata of timed words; nil without any.
    convenience init?(segments: [SFTranscriptionSegment]) {
        guard let first = segments.first, let last = segments.last else { return nil }
        let duration = max(0, last.timestamp + last.duration - first.timestamp)
        let pauses = zip(segments, segments.dropFirst()).map { max(0, $1.timestamp - ($0.timestamp + $0.duration)) }
        self.init(speakingRate: duration > 0 ? Double(segments.count) / duration * 60 : 0,
                  averagePauseDuration: pauses.isEmpty ? 0 : pauses.reduce(0, +) / Double(pauses.count),
                  speechStartTimestamp: first.timestamp, speechDuration: duration)
    }
}

/// Voice analytics of speech, as Apple's `SFVoiceAnalytics`. OpenSpeech does not compute them: results carry nil.
public final class SFVoiceAnalytics: NSObject, Sendable {
    /// Frame-to-frame variation of pitch period, per frame.
    public let jitter: SFAcousticFeature
    /// Frame-to-frame variation of amplitude, per frame.
    public let shimmer: SFAcousticFeature
    /// Pitch, per frame.
    public let pitch: SFAcousticFeature
    /// Probability that each frame is voiced.
    public let voicing: SFAcousticFeature

    /// Analytics with these four features. Apple's has no public initializer; OpenSpeech itself never creates one.
    public init(jitter: SFAcousticFeature, shimmer: SFAcousticFeature, pitch: SFAcousticFeature, voicing: SFAcousticFeature) {
        self.jitter = jitter
        self.shimmer = shimmer
        self.pitch = pitch
        self.voicing = voicing
    }
}

/// One acoustic feature per audio frame, as Apple's `SFAcousticFeature`.
public final class SFAcousticFeature: NSObject, Sendable {
    /// The feature's value for each frame.
    public let acousticFeatureValuePerFrame: [Double]
    /// The length of a frame, in seconds.
    public let frameDuration: TimeInterval

    /// A feature with one value per frame of `frameDuration` seconds. Apple's has no public initializer.
    public init(acousticFeatureValuePerFrame: [Double], frameDuration: TimeInterval) {
        self.acousticFeatureValuePerFrame = acousticFeatureValuePerFrame
        self.frameDuration = frameDuration
    }
}
