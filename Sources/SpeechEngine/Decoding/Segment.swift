/// A stretch of transcribed speech between two timestamps.
public struct Segment: Sendable, Equatable {
    public var id: Int
    /// Frame (10 ms) at which the window that produced it started.
    public var seek: Int
    /// Seconds from the start of the audio.
    public var start: Double
    public var end: Double
    public var text: String
    /// Token ids, timestamps included.
    public var tokens: [Int]
    /// Average log-probability of the window's tokens.
    public var avgLogProb: Double
    public var compressionRatio: Double
    /// Probability the window holds no speech.
    public var noSpeechProb: Double
    /// Temperature the window was decoded at.
    public var temperature: Double
    /// Words with times, when word timestamps were asked for.
    public var words: [Word]?
    /// This segment's text in each of its window's hypotheses that spans the same stretch of audio (the same
    /// start and end timestamps), best first by the decoder's length-normalised score, so the first is `text`;
    /// distinct texts, at most the beam size (or `bestOf`). Nil unless `TranscriptionOptions.alternatives`.
    public var alternatives: [String]?
    /// The language the segment was decoded in (Whisper's code): the options' or the one detected on its window.
    public var language: String? = nil
}

/// A word with its time and probability (from cross-attention alignment).
public struct Word: Sendable, Equatable {
    public var start: Double
    public var end: Double
    /// The word as spelled in the text, with its leading space.
    public var word: String
    public var probability: Double

    public init(start: Double, end: Double, word: String, probability: Double) {
        self.start = start
        self.end = end
        self.word = word
        self.probability = probability
    }
}
