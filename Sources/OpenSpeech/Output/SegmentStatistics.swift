/// What the decoder reports for a segment, as Whisper's transcribe and OpenAI's `verbose_json` name it. Not in
/// Apple's API: an OpenSpeech-only attribute of final results (`SpeechTranscriber.Result.segmentStatistics`).
public struct SegmentStatistics: Sendable, Codable, Equatable {
    /// The 10 ms frame at which the decoding window that produced the segment started.
    public var seek: Int
    /// The segment's token ids, timestamp tokens included.
    public var tokens: [Int]
    /// The average log-probability of the window's tokens.
    public var avgLogProb: Double
    /// The gzip compression ratio of the window's text (high: repetitive).
    public var compressionRatio: Double
    /// The probability the window holds no speech.
    public var noSpeechProb: Double
    /// The sampling temperature the window was decoded at (above 0 after a fallback).
    public var temperature: Double

    /// Statistics with these values, as the decoder reports them.
    public init(seek: Int, tokens: [Int], avgLogProb: Double, compressionRatio: Double, noSpeechProb: Double,
                temperature: Double) {
        self.seek = seek
        self.tokens = tokens
        self.avgLogProb = avgLogProb
        self.compressionRatio = compressionRatio
        self.noSpeechProb = noSpeechProb
        self.temperature = temperature
    }
}
