// Placeholder: the Whisper engine (issue 4) lands here.
import CBLAS
enum SpeechEnginePlaceholder {}
