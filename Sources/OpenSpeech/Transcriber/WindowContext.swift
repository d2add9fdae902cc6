import SpeechEngine

/// The audio heard before a short volatile window. Once committed words leave the window (`LocalAgreement`'s trim at
/// a sentence end, a pause, the end of the input), the next decoding would hear only the audio after them: a second
/// or less after a trim, where Whisper invents text over a stub ("Thank you.", the prompt's last words again) and
/// reads a sentence's first words without the sound before them. File transcription never decodes such a stub alone.
/// So an agreement decoding of a window shorter than `minimumSeconds` hears the committed audio before it again, from
/// the start of a committed word, and the text of those words leaves its prompt (heard, not read twice); their words
/// are then not fresh (`LocalAgreement.fresh`). A pure value type over samples and words, tested without a model.
struct WindowContext: Sendable, Equatable {
    /// The least audio an agreement decoding hears, when committed audio before the window allows.
    /// Measured over the English corpus's 76 clips (`live-bench finals`): 3 s and 6 s of it take the finals' WER
    /// from 11.0 % to 10.6 % and 9.3 % (file mode 9.0 %); 10 s makes the decoder stop early more often.
    static let minimumSeconds = 6.0
    private static let rate = 16_000.0
    private static let minimumSamples = Int(minimumSeconds * rate)

    /// Committed audio that left the window, at most `minimumSeconds` of it, ending where the window starts.
    private(set) var samples: [Float] = []
    /// The timeline sample of `samples[0]`.
    private(set) var start: Int64 = 0
    /// The committed words that start in `samples` (timeline seconds), in order.
    private(set) var words: [Word] = []

    /// Audio before the window and the text to leave out of the prompt for it.
    struct Heard: Equatable {
        var samples: ArraySlice<Float>
        /// The timeline sample of the first of `samples`.
        var start: Int64
        /// The committed words' text heard in `samples` (the end of the prompt text).
        var text: String
    }

    /// Audio left the window: `dropped` samples that ended at timeline sample `end`, with the committed `words` that
    /// start in them. Audio that does not continue what is kept replaces it.
    mutating func append(_ dropped: ArraySlice<Float>, endingAt end: Int64, words droppedWords: [Word]) {
        let droppedStart = end - Int64(dropped.count)
        if droppedStart != start + Int64(samples.count) {
            samples = []
            words = []
            start = droppedStart
        }
        samples += dropped
        words += droppedWords
        let excess = samples.count - Self.minimumSamples
        if excess > 0 {
            samples.removeFirst(excess)
            start += Int64(excess)
            let first = Double(start) / Self.rate
            words.removeAll { $0.start < first }
        }
    }

    /// Nothing before the window is context any more (the audio jumps, or was cancelled): the window starts at
    /// timeline sample `windowStart`.
    mutating func reset(at windowStart: Int64) {
        samples = []
        words = []
        start = windowStart
    }

    /// What a window of `count` samples hears before it: nil when it is `minimumSeconds` long, or nothing is kept.
    /// Enough committed audio to make the window that long, extended back to the start of the word it falls in.
    func before(windowOf count: Int) -> Heard? {
        let needed = Self.minimumSamples - count
        guard needed > 0, !samples.isEmpty else { return nil }
        let end = start + Int64(samples.count)
        let wanted = Double(max(start, end - Int64(needed))) / Self.rate
        // The word heard first: the last one starting by the wanted start (else the first kept).
        let first = words.lastIndex { $0.start <= wanted } ?? words.startIndex
        let from = words.isEmpty ? wanted : min(wanted, words[first].start)
        let offset = min(max(Int((from * Self.rate).rounded(.down) - Double(start)), 0), samples.count)
        return Heard(samples: samples[offset...], start: start + Int64(offset),
                     text: words[first...].map(\.word).joined())
    }
}
