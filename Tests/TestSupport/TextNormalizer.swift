// The normalizers and word error rate live in the SpeechEvaluation library (shared with the
// benchmark); tests get them with TestSupport.
@_exported import SpeechEvaluation
