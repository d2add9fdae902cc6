import SpeechEngine

/// What live (volatile) transcription needs from a model family's engine: a window of at most 30 s decoded after a
/// prompt, the language of some speech, text turned into prompt tokens. Whisper's `WhisperSession` is the first
/// conformer; `LocalAgreementStrategy` knows nothing else of the engine, and its tests drive it with a scripted one.
protocol WindowDecoder: AnyObject {
    /// Whether the model hears (and names) many languages: only then are a language and a task given to it.
    var isMultilingual: Bool { get }
    /// The token ids of `text`, for prompts.
    func encode(_ text: String) -> [Int]
    /// The window's segments, with times shifted by `timeOffset` seconds (`WhisperSession.decodeWindow`).
    func decodeWindow(samples: [Float], previousTokens: [Int], timeOffset: Double, options: TranscriptionOptions,
                      encodedPositions: Int?) throws -> [Segment]
    /// Languages and their probabilities for `samples`, most likely first.
    func detectLanguage(samples: [Float], encodedPositions: Int?) throws -> [(language: String, probability: Double)]
}

extension WhisperSession: WindowDecoder {
    var isMultilingual: Bool { model.tokenizer.isMultilingual }

    func encode(_ text: String) -> [Int] { model.tokenizer.encode(text) }
}
