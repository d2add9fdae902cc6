import SpeechEngine

/// What language detection runs on: a whole model's session (when the model that transcribes is loaded already) or
/// a detection-only one (`LanguageDetectionModel`, loaded for detection alone).
protocol LanguageDetecting {
    /// Language probabilities on the first 30 s of `samples`, most likely first; `encodedPositions` shortens the
    /// encoding (nil: the whole padded window).
    func detectLanguage(samples: [Float], encodedPositions: Int?) throws -> [(language: String, probability: Double)]
}

extension WhisperSession: LanguageDetecting {}
extension LanguageDetectionSession: LanguageDetecting {}
