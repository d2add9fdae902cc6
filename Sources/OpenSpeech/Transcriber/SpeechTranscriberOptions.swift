import SpeechEngine

extension SpeechTranscriber {
    /// Options that change the text, as in Apple's Speech.
    public enum TranscriptionOption: Hashable, Sendable, CaseIterable {
        /// Masks profanity with asterisks (the first letter stays).
        case etiquetteReplacements
    }

    /// Options that change which results are delivered and when, as in Apple's Speech.
    public enum ReportingOption: Hashable, Sendable, CaseIterable {
        /// Deliver volatile (provisional) results as audio arrives, replaced by final ones later.
        case volatileResults
        /// Deliver alternative transcriptions in `Result.alternatives`. Ours: the beam search's other finished
        /// hypotheses for each final result of final-only transcription (see `Result.alternatives`).
        case alternativeTranscriptions
        /// Favour latency over accuracy. Ours: volatile-only previews every 0.25 s of audio instead of 0.5 s while the
        /// machine keeps up with a live source (skipped when it falls behind); finals are the same with or without.
        case fastResults
    }

    /// Attributes put on result text, as in Apple's Speech.
    public enum ResultAttributeOption: Hashable, Sendable, CaseIterable {
        /// `audioTimeRange` on each word.
        case audioTimeRange
        /// `transcriptionConfidence` (0 to 1) on each word (with time ranges) or result.
        case transcriptionConfidence
    }

    /// A named set of options, as in Apple's Speech.
    public struct Preset: Sendable, Equatable {
        /// The options that change the text.
        public var transcriptionOptions: Set<TranscriptionOption>
        /// The options that choose which results are delivered and when.
        public var reportingOptions: Set<ReportingOption>
        /// The attributes put on result text.
        public var attributeOptions: Set<ResultAttributeOption>

        /// A preset with these options.
        public init(transcriptionOptions: Set<TranscriptionOption>, reportingOptions: Set<ReportingOption>,
                    attributeOptions: Set<ResultAttributeOption>) {
            self.transcriptionOptions = transcriptionOptions
            self.reportingOptions = reportingOptions
            self.attributeOptions = attributeOptions
        }

        /// Final results only.
        public static let transcription = Preset(transcriptionOptions: [], reportingOptions: [], attributeOptions: [])
        /// Final results with alternatives.
        public static let transcriptionWithAlternatives = Preset(
            transcriptionOptions: [], reportingOptions: [.alternativeTranscriptions], attributeOptions: [])
        /// Final results with alternatives and word time ranges.
        public static let timeIndexedTranscriptionWithAlternatives = Preset(
            transcriptionOptions: [], reportingOptions: [.alternativeTranscriptions], attributeOptions: [.audioTimeRange])
        /// Volatile results, fast, then final ones.
        public static let progressiveTranscription = Preset(
            transcriptionOptions: [], reportingOptions: [.volatileResults, .fastResults], attributeOptions: [])
        /// Volatile results, fast, then final ones, with word time ranges.
        public static let timeIndexedProgressiveTranscription = Preset(
            transcriptionOptions: [], reportingOptions: [.volatileResults, .fastResults], attributeOptions: [.audioTimeRange])

        /// The name early documentation (and the seeds) used for `transcription`.
        public static let offlineTranscription = transcription
        /// The name early documentation (and the seeds) used for `progressiveTranscription`.
        public static let progressiveLiveTranscription = progressiveTranscription
    }

    /// OpenSpeech's own settings, beyond Apple's API: which model and how hard to search.
    public struct EngineConfiguration: Sendable, Equatable {
        /// A catalog model id to use instead of the locale's default.
        public var modelID: String?
        /// Beam width for final results (1 is greedy); nil: the model family's default (Whisper's `defaultBeamSize`,
        /// Moonshine's greedy), also for volatile mode's agreement decodings (its previews are greedy).
        public var beamSize: Int?
        /// The beam width of Whisper models when none is given: 5, as Whisper's and faster-whisper's.
        public static var defaultBeamSize: Int { TranscriptionOptions.defaultBeamSize }
        /// The beam widths the command line and server accept.
        public static var beamSizes: ClosedRange<Int> { TranscriptionOptions.beamSizes }
        /// Word time ranges even without the `.audioTimeRange` attribute option (for subtitles).
        public var wordTimestamps: Bool
        /// The precision of the engine's products (`int8`, `float32`..., `auto`: the fastest this CPU runs).
        public var computeType: ComputeType
        /// Text given to the model as if it preceded the audio (spelling, style, names), as whisper's
        /// `--initial_prompt`; the text transcribed follows it as context.
        public var initialPrompt: String?
        /// Sampling temperatures tried in order while a window's text is too repetitive or too improbable
        /// (Whisper's fallback); nil: 0, 0.2 ... 1.0. `[0]` turns the fallback off.
        public var temperatures: [Double]?
        /// Transcribe in the language spoken, or translate to English (multilingual models only: an English-only
        /// model fails `prepare` with `SFSpeechError(.cannotAllocateUnsupportedLocale)` naming one that translates).
        public var task: TranscriptionTask
        /// Detect the spoken language instead of taking the locale's (not in Apple's API, whose transcribers are
        /// told their locale): a multilingual model (`modelID` if it is one, else the catalog's preferred one)
        /// transcribes, detecting the language on the first 30 s of each stretch of audio, and each final result
        /// carries the language heard as its `detectedLanguage` attribute. With volatile results, the language is
        /// detected once in the first speech (about 2 s of it) and kept for the rest of the stream.
        public var detectsLanguage: Bool
        /// With `detectsLanguage`, final-only: detect the language of every 30 s window, not only of the first (for
        /// recordings in several languages); each result carries its window's language. Not in Apple's API.
        public var detectsLanguagePerWindow: Bool
        /// Final-only: 30 s windows encoded together, the one being decoded and full ones after it, used when the
        /// decoder reaches them (results identical at every size; 1: one at a time). Not in Apple's API.
        public var encoderBatchSize = 1
        /// Threads the engine's work is spread over (nil: `OPENBLAS_NUM_THREADS` if set, else the cores available).
        /// The text is the same at every count. Not in Apple's API.
        public var threads: Int?

        /// A configuration with these settings; by default the locale's model, the default beam and compute type,
        /// Whisper's temperature fallback, and transcription in the locale's language.
        public init(modelID: String? = nil, beamSize: Int? = nil, wordTimestamps: Bool = false,
                    computeType: ComputeType = .default, initialPrompt: String? = nil, temperatures: [Double]? = nil,
                    task: TranscriptionTask = .transcribe, detectsLanguage: Bool = false,
                    detectsLanguagePerWindow: Bool = false, threads: Int? = nil) {
            self.threads = threads
            self.task = task
            self.detectsLanguage = detectsLanguage
            self.detectsLanguagePerWindow = detectsLanguagePerWindow
            self.modelID = modelID
            self.beamSize = beamSize
            self.wordTimestamps = wordTimestamps
            self.computeType = computeType
            self.initialPrompt = initialPrompt
            self.temperatures = temperatures
        }
    }
}

extension SpeechTranscriber.EngineConfiguration {
    /// This configuration with `encoderBatchSize` set (at least 1).
    func encodingBatches(of size: Int) -> Self {
        var configuration = self
        configuration.encoderBatchSize = max(1, size)
        return configuration
    }
}
