import Foundation
import SpeechAssets
import SpeechAudio

/// A result of a module: the audio it covers and how far the module's results are final, as in Apple's Speech.
public protocol SpeechModuleResult: Sendable {
    /// The audio this result describes, on the analyzer's timeline.
    var range: CMTimeRange { get }
    /// Results for audio before this time will not change.
    var resultsFinalizationTime: CMTime { get }
}

extension SpeechModuleResult {
    /// Whether this result is final: its whole range lies before `resultsFinalizationTime`.
    public var isFinal: Bool { resultsFinalizationTime >= range.end }
}

/// A result's `description`: "0.00–2.48 s, final: text", or "volatile" while it may change.
func resultDescription(_ range: CMTimeRange, _ finalizationTime: CMTime, _ content: String) -> String {
    String(format: "%.2f–%.2f s, %@: %@", range.start.seconds, range.end.seconds,
           finalizationTime >= range.end ? "final" : "volatile", content)
}

/// An analysis module an analyzer runs (`SpeechTranscriber`, `DictationTranscriber`, `SpeechDetector`), as in
/// Apple's Speech. Results arrive on `results`, which ends when the analysis session finishes.
///
/// Apple's `results` is `some AsyncSequence`; ours is concretely an `AsyncThrowingStream`. Only this package's
/// modules can be added to an analyzer, as with Apple's.
public protocol SpeechModule: AnyObject, Sendable, AssetDependentModule {
    /// The type of the module's results.
    associatedtype Result: SpeechModuleResult
    /// The module's results, in time order for final results. Iterate it once.
    var results: AsyncThrowingStream<Result, any Error> { get }
    /// Audio formats the module takes; empty when its model is not installed.
    var availableCompatibleAudioFormats: [AVAudioFormat] { get async }
}

/// A module whose work depends on a language, as in Apple's Speech.
public protocol LocaleDependentSpeechModule: SpeechModule {
    /// The locales the module can be created with (available to install or installed).
    static var supportedLocales: [Locale] { get async }
    /// A supported locale equivalent to `locale`: itself, else the same language in another region, preferring
    /// installed ones. Apple's is `async`; ours is synchronous, so calls with or without `await` compile.
    static func supportedLocale(equivalentTo locale: Locale) -> Locale?
    /// The locales this module instance works in.
    var selectedLocales: [Locale] { get }
}

/// What the analyzer drives in each of this package's modules. Not public: Apple's API has no custom modules.
protocol AnalyzerDrivenModule: SpeechModule {
    var processor: any ModuleProcessor { get }
}

/// The audio-processing side of a module. The analyzer calls these in timeline order; samples are 16 kHz mono
/// Float32 and positions are sample indices on the analyzer's timeline.
protocol ModuleProcessor: Actor {
    /// Loads models; throws `SFSpeechError(.noModel)` if one is missing.
    func prepare(context: AnalysisContext, retention: SpeechAnalyzer.Options.ModelRetention) async throws
    /// New audio starting at timeline sample `start`; audio before `start` not yet received was skipped.
    func append(_ samples: [Float], at start: Int64) async throws
    /// Finalizes results for audio up to timeline sample `end` (everything received if nil).
    func finalize(through end: Int64?) async throws
    /// Drops pending work on audio before `start` (best effort).
    func cancel(before start: Int64) async
    /// The analysis context changed (custom vocabulary).
    func setContext(_ context: AnalysisContext) async
    /// Ends the module's results, with an error if the session failed; releases models.
    func finish(throwing error: (any Error)?) async
    /// The timeline sample through which this module's results are final (what the analyzer's `volatileRange` starts
    /// at); nil for a module that delivers no results.
    var resultsFinalThrough: Int64? { get async }
    /// The speech regions this module finds for the analyzer's other modules (a detector's); nil for others. The
    /// analyzer gives such modules audio first.
    nonisolated var publishedSpeechRegions: SpeechRegionLog? { get }
    /// The speech regions another module of the analyzer publishes (nil: none does): transcribers leave the rest out.
    func follow(speechRegions: SpeechRegionLog?) async
}

extension ModuleProcessor {
    var resultsFinalThrough: Int64? { nil }
    nonisolated var publishedSpeechRegions: SpeechRegionLog? { nil }
    func follow(speechRegions: SpeechRegionLog?) async {}
}
