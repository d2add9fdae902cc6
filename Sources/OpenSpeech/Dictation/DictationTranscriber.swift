import Foundation
import SpeechAssets
import SpeechAudio

/// Speech to text for dictation, as Apple's `DictationTranscriber` module: the same Whisper engine as
/// `SpeechTranscriber`, with dictation's text options and presets tuned for short utterances and low latency.
///
/// Without `.punctuation` the model's punctuation is removed (spoken punctuation words such as "comma" stay
/// words); with `.emoji`, spoken emoji names become emoji. With `.shortForm`, volatile results come every half
/// second and decoding is greedy (beam search when `.alternativeTranscriptions` asks for alternatives of final-only
/// results).
///
/// With `.customizedLanguage(modelConfiguration:)`, the prepared custom language model's terms and most frequent
/// phrases become contextual strings (see `SFSpeechLanguageModel`); preparing the analyzer throws
/// `SFSpeechError(.malformedSupplementalModel)` if the model was not prepared.
///
/// Differs from Apple's: the locale picks a catalog model as for `SpeechTranscriber`; `farField` and
/// `atypicalSpeech` are stored but change nothing; alternatives are the beam search's other hypotheses, so volatile
/// mode has one per result; text keeps Whisper's capitalization.
public final class DictationTranscriber: LocaleDependentSpeechModule, AnalyzerDrivenModule {
    /// A transcription of a stretch of audio, as in Apple's Speech.
    public struct Result: SpeechModuleResult, Sendable, Equatable {
        /// The stretch of audio the result transcribes, on the analyzer's timeline.
        public let range: CMTimeRange
        /// Results for audio before this time will not change: final results are delivered up to it.
        public let resultsFinalizationTime: CMTime
        /// The best transcription: `alternatives[0]`.
        public var text: AttributedString { alternatives[0] }
        /// Transcriptions of this range, most likely first; never empty. Apple's lists other interpretations when
        /// `.alternativeTranscriptions` is set, else one.
        ///
        /// Ours, with `.alternativeTranscriptions`: as `SpeechTranscriber.Result.alternatives` (the beam search's
        /// other finished hypotheses for the same stretch of audio, best first, the first keeping the attributes),
        /// each formatted by the dictation options; texts that read the same once formatted are one. Final-only
        /// results can have several (beam 5, `shortForm` included); volatile mode gives one.
        public let alternatives: [AttributedString]
    }

    /// Results in order, volatile and final; the stream ends when the analyzer finishes, or throws its error.
    public let results: AsyncThrowingStream<Result, any Error>
    /// The hints about the speech, as given at creation (`farField` and `atypicalSpeech` change nothing here).
    public let contentHints: Set<ContentHint>
    /// The options that change the text (punctuation, emoji, etiquette), as given at creation.
    public let transcriptionOptions: Set<TranscriptionOption>
    /// The options that choose which results are delivered and when, as given at creation.
    public let reportingOptions: Set<ReportingOption>
    /// The attributes put on result text, as given at creation.
    public let attributeOptions: Set<ResultAttributeOption>
    /// The locale the transcriber was created for, as a one-element array.
    public let selectedLocales: [Locale]
    let processor: any ModuleProcessor
    private let needs: CatalogModel.Capabilities

    /// A transcriber for `locale` with a preset's options.
    public convenience init(locale: Locale, preset: Preset) {
        self.init(locale: locale, contentHints: preset.contentHints, transcriptionOptions: preset.transcriptionOptions,
                  reportingOptions: preset.reportingOptions, attributeOptions: preset.attributeOptions)
    }

    /// A transcriber for `locale` with the given hints and options.
    public init(locale: Locale, contentHints: Set<ContentHint>, transcriptionOptions: Set<TranscriptionOption>,
                reportingOptions: Set<ReportingOption>, attributeOptions: Set<ResultAttributeOption>) {
        self.contentHints = contentHints
        self.transcriptionOptions = transcriptionOptions
        self.reportingOptions = reportingOptions
        self.attributeOptions = attributeOptions
        selectedLocales = [locale]
        let (stream, continuation) = AsyncThrowingStream<Result, any Error>.makeStream()
        results = stream
        let volatile = reportingOptions.contains(.volatileResults)
        let shortForm = contentHints.contains(.shortForm)
        let alternatives = reportingOptions.contains(.alternativeTranscriptions)
        let formatter = DictationTextFormatter(punctuation: transcriptionOptions.contains(.punctuation),
                                               emoji: transcriptionOptions.contains(.emoji))
        let transcription = TranscriptionProcessor(
            settings: .init(
                locale: locale, modelID: nil, volatile: volatile,
                stepSeconds: shortForm || reportingOptions.contains(.frequentFinalization) ? 0.5 : 1.0,
                beamSize: shortForm && !alternatives ? 1 : 5,
                wordTimes: attributeOptions.contains(.audioTimeRange),
                timeRangeAttributes: attributeOptions.contains(.audioTimeRange),
                confidence: attributeOptions.contains(.transcriptionConfidence),
                etiquette: transcriptionOptions.contains(.etiquetteReplacements),
                alternatives: alternatives),
            output: { result in
                continuation.yield(Result(range: result.range, resultsFinalizationTime: result.resultsFinalizationTime,
                                          alternatives: result.alternatives.map(formatter.format).distinctTexts()))
            },
            end: { error in error.map { continuation.finish(throwing: $0) } ?? continuation.finish() })
        needs = transcription.settings.needs
        let customModels = contentHints.compactMap(\.modelConfiguration)
        processor = customModels.isEmpty ? transcription
            : CustomVocabularyProcessor(wrapping: transcription, configurations: customModels)
    }

    // MARK: Availability and locales

    /// Whether dictation can run on this machine (it can wherever the package builds).
    public static var isAvailable: Bool { true }

    /// Locales some catalog model transcribes, installed or not.
    public static var supportedLocales: [Locale] {
        get async { await SpeechTranscriber.supportedLocales }
    }

    /// Locales whose model is installed.
    public static var installedLocales: [Locale] {
        get async { await SpeechTranscriber.installedLocales }
    }

    /// A supported locale equivalent to `locale`, as `SpeechTranscriber.supportedLocale(equivalentTo:)` finds it.
    /// Synchronous, unlike Apple's `async` one.
    public static func supportedLocale(equivalentTo locale: Locale) -> Locale? {
        SpeechTranscriber.supportedLocale(equivalentTo: locale)
    }

    /// 16 kHz mono, Float32 or Int16; empty while the model is not installed.
    public var availableCompatibleAudioFormats: [AVAudioFormat] {
        get async {
            guard TranscriptionProcessor.modelDirectory(locale: selectedLocales[0], modelID: nil, store: ModelStore()) != nil else { return [] }
            return SpeechAnalyzer.speechFormats
        }
    }

    // MARK: Assets

    /// The locales whose models the transcriber needs installed.
    public var assetLocales: [Locale] { selectedLocales }
    /// What the transcriber asks of its locale's model (alternatives): the default installed is one that serves it.
    /// Not in Apple's API.
    public var assetNeeds: CatalogModel.Capabilities { needs }
}

extension DictationTranscriber.Result: Hashable, CustomStringConvertible {
    /// Hashes the transcriptions (results that are equal have equal transcriptions).
    public func hash(into hasher: inout Hasher) {
        hasher.combine(alternatives)
    }

    /// The range, whether final, and the text, for logs.
    public var description: String { resultDescription(range, resultsFinalizationTime, String(text.characters)) }
}
