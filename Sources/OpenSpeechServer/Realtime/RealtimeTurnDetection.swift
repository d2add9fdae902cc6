/// Server VAD for a Realtime session, as a pure policy over the speech detector's probabilities (one per 512-sample
/// chunk of the 16 kHz stream, 32 ms): speech starts at the first chunk at or above `threshold`; it continues while
/// chunks stay above `threshold - 0.15` (Silero's hysteresis) and stops once they have stayed below it for
/// `silenceDurationMilliseconds`. Positions are in samples of the session's 16 kHz timeline, so the turns depend on
/// the audio alone, not on how the client cut it into events.
struct RealtimeTurnDetection: Sendable, Equatable {
    enum Event: Sendable, Equatable {
        /// Speech began at `speechStart`; OpenAI's `audio_start_ms` includes the prefix padding: `audioStart`.
        case speechStarted(speechStart: Int64, audioStart: Int64)
        /// Speech ended at `speechEnd`; the buffer is committed through `commitThrough` (the silence that ended it).
        case speechStopped(speechEnd: Int64, commitThrough: Int64)
    }

    static let sampleRate: Int64 = 16_000
    static let chunkLength: Int64 = 512

    var threshold: Double
    var prefixPaddingMilliseconds: Int
    var silenceDurationMilliseconds: Int
    private(set) var isSpeaking = false
    /// The end of the last chunk heard as speech.
    private var lastSpeechEnd: Int64 = 0

    init(threshold: Double, prefixPaddingMilliseconds: Int, silenceDurationMilliseconds: Int) {
        self.threshold = threshold
        self.prefixPaddingMilliseconds = prefixPaddingMilliseconds
        self.silenceDurationMilliseconds = silenceDurationMilliseconds
    }

    init(_ settings: RealtimeSessionSettings.TurnDetection) {
        self.init(threshold: settings.threshold, prefixPaddingMilliseconds: settings.prefixPaddingMilliseconds,
                  silenceDurationMilliseconds: settings.silenceDurationMilliseconds)
    }

    /// Takes the probability of the chunk ending at sample `chunkEnd`; `bufferStart` is where the uncommitted audio
    /// begins (the prefix padding does not reach before it).
    mutating func observe(_ probability: Float, chunkEnd: Int64, bufferStart: Int64) -> Event? {
        let chunkStart = chunkEnd - Self.chunkLength
        if !isSpeaking {
            guard Double(probability) >= threshold else { return nil }
            isSpeaking = true
            lastSpeechEnd = chunkEnd
            let padding = Int64(prefixPaddingMilliseconds) * Self.sampleRate / 1000
            return .speechStarted(speechStart: chunkStart, audioStart: max(bufferStart, chunkStart - padding, 0))
        }
        if Double(probability) >= threshold - 0.15 {
            lastSpeechEnd = chunkEnd
            return nil
        }
        let silence = Int64(silenceDurationMilliseconds) * Self.sampleRate / 1000
        guard chunkEnd - lastSpeechEnd >= silence else { return nil }
        isSpeaking = false
        return .speechStopped(speechEnd: lastSpeechEnd, commitThrough: chunkEnd)
    }

    /// Forgets speech in progress (the buffer was cleared or committed by the client).
    mutating func reset() {
        isSpeaking = false
    }
}
