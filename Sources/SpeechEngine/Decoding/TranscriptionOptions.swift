/// Options of a transcription, with faster-whisper's names and defaults.
public struct TranscriptionOptions: Sendable {
    public enum Task: String, Sendable { case transcribe, translate }

    /// ISO 639-1 code; nil detects it on the first window (multilingual models) or means English.
    public var language: String?
    /// With no `language`: detect the language of every 30 s window of long-form transcription (for recordings
    /// in several languages), not only of the first; each segment carries its window's language.
    public var detectsLanguagePerWindow = false
    public var task: Task = .transcribe
    /// 1 is greedy decoding.
    public var beamSize: Int = Self.defaultBeamSize
    /// The beam width when none is given: 5, as Whisper's and faster-whisper's.
    public static let defaultBeamSize = 5
    /// The beam widths front ends accept (wider beams cost more than they find).
    public static let beamSizes = 1...16
    /// Candidates sampled at each temperature above 0.
    public var bestOf: Int = 5
    public var patience: Double = 1
    public var lengthPenalty: Double = 1
    /// Tried in order while the result is too repetitive or too improbable.
    public var temperatures: [Double] = [0, 0.2, 0.4, 0.6, 0.8, 1.0]
    public var compressionRatioThreshold: Double? = 2.4
    /// Not in faster-whisper: a window whose text says a run of at least this many tokens twice in a row is decoded
    /// again at the next temperature, as a too-compressible one is (a loop of one long phrase stays under the
    /// compression ratio's threshold). nil: only the compression ratio.
    public var repetitionLoopLength: Int? = 12
    /// Not in faster-whisper: a window whose text says a run of the prompt's text (at least this many tokens of it)
    /// twice in a row is decoded again without the prompt's text (`PromptCopy`).
    public var promptCopyLength = 4
    public var logProbThreshold: Double? = -1
    public var noSpeechThreshold: Double? = 0.6
    public var conditionOnPreviousText = true
    public var promptResetOnTemperature: Double = 0.5
    /// Text given as if it preceded the audio (style, vocabulary).
    public var initialPrompt: String?
    /// Token ids of previous text, used instead of `initialPrompt` when set.
    public var initialPromptTokens: [Int]?
    public var suppressBlank = true
    /// Token ids never generated; -1 stands for the model's default set of non-speech symbols.
    public var suppressTokens: [Int] = [-1]
    public var withoutTimestamps = false
    public var maxInitialTimestamp: Double = 1.0
    public var wordTimestamps = false
    public var prependPunctuations = "\"'“¿([{-"
    public var appendPunctuations = "\"'.。,，!！?？:：”)]}、"
    /// Limit of generated tokens per window (nil: the model's limit).
    public var maxNewTokens: Int?
    /// Seed of the sampler used at temperatures above 0.
    public var seed: UInt64 = 0
    /// Not in faster-whisper: keep each window's ranked hypotheses (beam search's finished ones, or the
    /// `bestOf` samples above temperature 0) and give every segment the texts they have for its stretch of
    /// audio in `Segment.alternatives`. Off, nothing is kept and decoding is unchanged.
    public var alternatives = false
    /// Not in faster-whisper: words and phrases to favour (custom vocabulary, contextual strings). They are boosted
    /// during decoding by contextual biasing over a token trie (shallow fusion, `ContextualBiasing`); the prompt is
    /// separate (`initialPrompt`). Empty: decoding is unchanged.
    public var biasingPhrases: [String] = []
    /// The bonus, in log-probability per token, of a token that continues a listed phrase; taken back when the
    /// phrase is left unfinished. 0 turns biasing off.
    public var biasingWeight: Double = TranscriptionOptions.defaultBiasingWeight
    /// Tuned on the custom-vocabulary dev set (tiny.en, beam 5, N=100 lists; BENCHMARKS.md).
    public static let defaultBiasingWeight = 2.0
    /// Not in faster-whisper's sequential `transcribe`: long-form windows encoded together, the one the decoder needs
    /// and up to `encoderBatchSize − 1` full windows after it (used when the decoder's seek lands on them, i.e. the
    /// window before was transcribed to its end; otherwise encoded again). Output is identical at every size
    /// (`EncoderBatchPlan`); 1 encodes one window at a time.
    public var encoderBatchSize = 1

    public init(language: String? = nil, task: Task = .transcribe, beamSize: Int = Self.defaultBeamSize) {
        self.language = language
        self.task = task
        self.beamSize = beamSize
    }

    /// faster-whisper's parity setting: greedy, temperature 0 only.
    public static var greedy: TranscriptionOptions {
        var o = TranscriptionOptions(beamSize: 1)
        o.temperatures = [0]
        return o
    }
}
