import Foundation
import SpeechAssets
import SpeechEngine

extension TranscriptionProcessor {
    struct Settings: Sendable {
        var locale: Locale
        var modelID: String?
        var volatile: Bool
        /// Audio between volatile mode's agreement decodings (its finals depend on it alone).
        var stepSeconds: Double
        /// New audio before a volatile-only preview decoding, when keeping up (nil: none). See `VolatileDecodeSchedule`.
        var previewSeconds: Double? = nil
        /// How a preview decodes the window (nil: as agreement decodings, over the padded 30 s).
        var previewDecoding: PreviewDecoding? = PreviewDecoding()
        /// nil: the model family's default (`TranscriptionEngine.defaultBeamSize`).
        var beamSize: Int?
        var wordTimes: Bool
        var timeRangeAttributes: Bool
        var confidence: Bool
        var etiquette: Bool
        /// Final-only results carry the beam's other hypotheses as alternatives.
        var alternatives: Bool = false
        /// Where models are looked for.
        var store = ModelStore()
        /// The precision of the engine's products.
        var computeType = ComputeType.default
        /// Text before the audio, for the model's first prompt.
        var initialPrompt: String?
        /// The temperature fallback's temperatures (nil: the engine's).
        var temperatures: [Double]?
        /// Transcribe, or translate to English.
        var task = SpeechTranscriber.TranscriptionTask.transcribe
        /// The multilingual model detects the language, and results carry it (volatile: once, in the first speech).
        var detectsLanguage = false
        /// Final-only, with `detectsLanguage`: the language of every 30 s window is detected.
        var detectsLanguagePerWindow = false
        /// Final-only: windows encoded together (`TranscriptionOptions.encoderBatchSize`).
        var encoderBatchSize = 1
        /// Threads the engine's work is spread over (nil: the engine's default).
        var threads: Int?
    }
}

extension TranscriptionProcessor.Settings {
    /// What these settings ask of a `TranscriptionPlan` (a detector beside the transcriber is the analyzer's).
    var planRequest: TranscriptionPlan.Request {
        .init(locale: locale, modelID: modelID, task: task, detectsLanguage: detectsLanguage,
              detectsLanguagePerWindow: detectsLanguagePerWindow, detectsSpeech: false, favoursLatency: volatile,
              needs: needs)
    }

    /// What the transcription asks of the model beyond its language: a prompt (an initial prompt), alternatives
    /// (final-only results that carry them). The analysis context's strings need nothing: every family favours them.
    var needs: CatalogModel.Capabilities {
        var needs: CatalogModel.Capabilities = []
        if !initialPromptText.isEmpty { needs.insert(.prompt) }
        if alternatives && !volatile { needs.insert(.alternatives) }
        return needs
    }

    /// The initial prompt as the text heard before the audio, which the transcript then continues (Whisper's
    /// `initial_prompt`): its usable tail after a space, or empty.
    var initialPromptText: String {
        guard let prompt = initialPrompt.map({ PromptText.usableTail($0.trimmingCharacters(in: .whitespacesAndNewlines))
            .trimmingCharacters(in: .whitespacesAndNewlines) }), !prompt.isEmpty else { return "" }
        return " " + prompt
    }

    /// The engine's options for these settings with `engine`, with the context's `phrases` boosted. A multilingual
    /// model is given the locale's language, or when the language is detected the one decided (`detectedLanguage`;
    /// nil: the engine detects it), and the task.
    func engineOptions(phrases: [String], engine: any TranscriptionEngine, detectedLanguage: String? = nil) -> TranscriptionOptions {
        var options = TranscriptionOptions()
        options.beamSize = beamSize ?? engine.defaultBeamSize
        options.bestOf = options.beamSize
        options.wordTimestamps = wordTimes
        // Volatile mode commits agreed words, not the beam's segments: it has no alternatives to keep.
        options.alternatives = alternatives && !volatile
        options.biasingPhrases = phrases
        options.encoderBatchSize = encoderBatchSize
        if let temperatures, !temperatures.isEmpty { options.temperatures = temperatures }
        if engine.isMultilingual {
            options.language = detectsLanguage ? detectedLanguage : LocaleModelResolver.whisperLanguage(of: locale)
            options.detectsLanguagePerWindow = detectsLanguagePerWindow
            options.task = task == .translate ? .translate : .transcribe
        }
        return options
    }
}
