import SpeechAudio

/// How a transcriber turns the analyzer's audio into results, beside each other: final-only
/// (`FinalOnlyStrategy`: one long-form stream) and volatile (`LocalAgreementStrategy`: a re-decoded window whose
/// words become final as decodings agree). `TranscriptionProcessor` owns one and calls it on its executor; the
/// strategy emits results through the closure it was made with.
protocol TranscriptionStrategy: AnyObject {
    /// The speech regions of a `SpeechDetector` sharing the analyzer (nil: none): audio it calls silence gets no text.
    var speechRegions: SpeechRegionLog? { get set }
    /// Results are final up to this timeline sample.
    var finalThrough: Int64 { get }
    /// Audio from timeline sample `start`, right after the audio before it (`skip(to:)` says when it is not).
    func append(_ samples: [Float], at start: Int64) throws
    /// Results for the audio through timeline sample `end` become final.
    func finalize(through end: Int64) throws
    /// Audio jumps to timeline sample `start`: nothing received before it is transcribed any more.
    func skip(to start: Int64)
    /// Drops the work not yet done on audio before timeline sample `start` (best effort).
    func cancel(before start: Int64)
}
