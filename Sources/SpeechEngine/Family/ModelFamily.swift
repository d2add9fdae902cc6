import Foundation

/// What the transcriber (`OpenSpeech`'s final-only and volatile strategies) needs of a model family's loaded model,
/// at the level of windows and streams: a family conforms its session to these, and nothing above the engine names
/// the family. Whisper's `WhisperSession` (`WhisperFamily.swift`) and Moonshine's `MoonshineSession` conform; the
/// transcriber's tests drive the strategies with scripted conformers, without weights. Sessions are owned by one actor
/// at a time (not `Sendable`).
public protocol TranscriptionEngine: AnyObject {
    /// Whether the model hears (and names) many languages: only then are a language and a task given to it.
    var isMultilingual: Bool { get }
    /// The token ids of `text`, for prompts (the text before, the context's words).
    func encode(_ text: String) -> [Int]
    /// The beam width when none is asked for: the family's best trade of accuracy for time.
    var defaultBeamSize: Int { get }
}

/// Live (volatile) transcription: a window of at most 30 s decoded after a prompt, again and again as audio
/// arrives, and the language of some speech.
public protocol WindowDecoder: TranscriptionEngine {
    /// The window's segments, with times shifted by `timeOffset` seconds. `encodedPositions`: encode only that many
    /// of the encoder's positions (a shorter window costs less; nil: the whole 30 s).
    func decodeWindow(samples: [Float], previousTokens: [Int], timeOffset: Double, options: TranscriptionOptions,
                      encodedPositions: Int?) throws -> [Segment]
    /// Languages and their probabilities for `samples`, most likely first.
    func detectLanguage(samples: [Float], encodedPositions: Int?) throws -> [(language: String, probability: Double)]
}

/// Final-only transcription: audio of any length streamed in, segments out as each stretch is decoded for good.
public protocol LongFormDecoder: TranscriptionEngine {
    /// A new stream, its prompt in `options.initialPromptTokens`.
    func longFormStream(options: TranscriptionOptions) -> any LongFormStream
}

/// One stream of 16 kHz audio decoded as it arrives, in stream positions (samples since its start). Results depend
/// only on the audio, the model and the options, never on how the audio was cut into calls.
public protocol LongFormStream: AnyObject {
    /// The language of the speech (detected in the first window when the options name none; nil before).
    var language: String? { get }
    /// The stream position through which the audio has been decoded for good.
    var decodedThrough: Int { get }
    /// Asked of each stretch about to be decoded: whether its segments need word times (nil: the options decide).
    var wordTimestampsWhere: ((Range<Int>) -> Bool)? { get set }
    /// The samples of speech (a detector's) in a range of stream positions (nil: none known); a stream may use it
    /// to check that its words do not step over speech.
    var speechSamples: ((Range<Int>) -> Int)? { get set }
    /// The first stream position inside a range (after its start) where the input left audio out between two
    /// stretches (a detector's pause), nil: none. A stream that decodes clips whole ends a clip there, so no clip
    /// joins two stretches (the default ignores it).
    var breaks: ((Range<Int>) -> Int?)? { get set }
    /// Audio after the audio so far.
    func append(_ samples: [Float]) throws
    /// Ends the stream's audio at stream position `position`; returns the samples received after it.
    func finish(at position: Int) -> [Float]
    /// The segments now final (none until a window's audio has all arrived, or the stream is finished).
    func decodeAvailable() throws -> [Segment]
}

extension LongFormStream {
    /// Whisper's windows join stretches; their timestamps and word times keep them apart.
    public var breaks: ((Range<Int>) -> Int?)? {
        get { nil }
        set {}
    }
}

/// A model family's loaded weights: immutable, shared by every session decoding with them.
public protocol SpeechModel: AnyObject, Sendable {
    /// Whether the model hears (and names) many languages.
    var isMultilingual: Bool { get }
    /// A session of its own, for one task at a time; `maxBeams`: the widest beam search it will be asked for (nil:
    /// its `defaultBeamSize`).
    func makeSession(maxBeams: Int?) -> any WindowDecoder & LongFormDecoder
}

/// The model families the engine runs, by the name the catalog gives them (`CatalogModel.family`): loading a model
/// is the only place the transcriber learns which family it holds.
public enum SpeechModelFamily: String, Sendable, Hashable, CaseIterable {
    case whisper
    case moonshine

    /// Whether `load`'s compute type changes the model: Whisper's products run at any; Moonshine's as its weights are
    /// stored (8-bit where the file's are, float32 elsewhere).
    public var hasComputeTypes: Bool { self == .whisper }

    /// Loads the model in `directory`, its products in `computeType`, its work spread over `threads` (nil: the
    /// engine's default).
    public func load(directory: URL, threads: Int?, computeType: ComputeType) throws -> any SpeechModel {
        switch self {
        case .whisper: try WhisperModel(directory: directory, threads: threads, computeType: computeType)
        // Moonshine's products run as its weights are stored (8-bit or float): `computeType` does not apply.
        case .moonshine: try MoonshineModel(directory: directory, threads: threads)
        }
    }
}
