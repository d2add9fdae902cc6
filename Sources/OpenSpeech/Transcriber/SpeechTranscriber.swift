import Foundation
import SpeechAssets
import SpeechAudio

/// Speech to text with a Whisper-family model, as Apple's `SpeechTranscriber` module.
///
/// Add it to a `SpeechAnalyzer`, feed audio, and read `results`. Without `.volatileResults`, each result is a
/// final segment (a phrase or sentence) with the model's punctuation and capitalization. With it, volatile
/// results (re-decoded every half second, or quarter second with `.fastResults`, while the machine keeps up, the
/// encoder hearing the window's own audio: `PreviewDecoding`) are replaced by final ones as two consecutive
/// decodings a second of audio apart agree (LocalAgreement-2), or with a `SpeechDetector` in the analyzer at its
/// pauses, from one decoding of the utterance (`PauseCommit`); the finals depend on the audio alone, not on the
/// machine's speed (`VolatileDecodeSchedule`). Those agreement decodings use the beam search (5 wide by default),
/// previews are greedy.
///
/// Differs from Apple's: the locale picks a catalog model, or `EngineConfiguration.modelID` names one. Its default
/// (English: `moonshine-base-en`, or `whisper-tiny.en` with an `initialPrompt` or `.alternativeTranscriptions`, which
/// Moonshine does not take; others `whisper-base`) is what gets installed; final-only transcription runs the most
/// accurate installed model that speaks the language and serves the request (`CatalogModel.accuracyClass`), live
/// transcription (`.volatileResults`) the default when it is installed, for speed. Each result's text keeps Whisper's
/// leading space except the session's first, so concatenating results gives the transcript.
public final class SpeechTranscriber: LocaleDependentSpeechModule, AnalyzerDrivenModule {
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
        /// Ours, with `.alternativeTranscriptions`: the texts the beam search finished with (or, where decoding
        /// fell back to sampling, the samples) for the same stretch of audio (same start and end timestamps),
        /// ranked by the length-normalised score that picks the best, distinct, at most the beam size. The first keeps the attributes; the others are plain text, with the result's
        /// `audioTimeRange` over all of it when asked. Only final results of final-only transcription with a beam
        /// (Whisper's default of 5, or `EngineConfiguration.beamSize` ≥ 2) can have several; volatile mode and greedy
        /// decoding give one, as does a segment no other hypothesis ends at the same time.
        public let alternatives: [AttributedString]
        /// Not in Apple's API: what the decoder reported for the segment a final result of final-only transcription
        /// holds (tokens, average log-probability, compression ratio, no-speech probability, temperature); nil
        /// for volatile results and live mode's finals.
        public let segmentStatistics: SegmentStatistics?
        /// The best text's timed words as values, exactly the runs `text` carries with `audioTimeRange` (none without
        /// that attribute option): what `Transcript` and the formatters read, never parsed back out of `text`.
        let words: [Transcript.Word]
        /// The language the transcriber detected (Whisper's code), as the text's `detectedLanguage` attribute says.
        let language: String?

        init(range: CMTimeRange, resultsFinalizationTime: CMTime, alternatives: [AttributedString],
             segmentStatistics: SegmentStatistics? = nil, words: [Transcript.Word] = [], language: String? = nil) {
            self.range = range
            self.resultsFinalizationTime = resultsFinalizationTime
            self.alternatives = alternatives.isEmpty ? [AttributedString()] : alternatives
            self.segmentStatistics = segmentStatistics
            self.words = words
            self.language = language
        }
    }

    /// Results in order, volatile and final; the stream ends when the analyzer finishes, or throws its error.
    public let results: AsyncThrowingStream<Result, any Error>
    /// The options that change the text, as given at creation.
    public let transcriptionOptions: Set<TranscriptionOption>
    /// The options that choose which results are delivered and when, as given at creation.
    public let reportingOptions: Set<ReportingOption>
    /// The attributes put on result text, as given at creation.
    public let attributeOptions: Set<ResultAttributeOption>
    /// OpenSpeech's own settings (model, beam, prompt, task...). Not in Apple's API.
    public let engineConfiguration: EngineConfiguration
    /// The locale the transcriber was created for, as a one-element array.
    public let selectedLocales: [Locale]
    let processor: any ModuleProcessor
    /// Where the model is looked for.
    let modelStore: ModelStore

    /// A transcriber for `locale` with a preset's options.
    public convenience init(locale: Locale, preset: Preset) {
        self.init(locale: locale, transcriptionOptions: preset.transcriptionOptions,
                  reportingOptions: preset.reportingOptions, attributeOptions: preset.attributeOptions)
    }

    /// A transcriber for `locale` with a preset's options and OpenSpeech's engine settings.
    public convenience init(locale: Locale, preset: Preset, engineConfiguration: EngineConfiguration) {
        self.init(locale: locale, transcriptionOptions: preset.transcriptionOptions,
                  reportingOptions: preset.reportingOptions, attributeOptions: preset.attributeOptions,
                  engineConfiguration: engineConfiguration)
    }

    /// A transcriber for `locale` with the given options.
    public convenience init(locale: Locale, transcriptionOptions: Set<TranscriptionOption>, reportingOptions: Set<ReportingOption>,
                attributeOptions: Set<ResultAttributeOption>, engineConfiguration: EngineConfiguration = .init()) {
        self.init(locale: locale, transcriptionOptions: transcriptionOptions, reportingOptions: reportingOptions,
                  attributeOptions: attributeOptions, engineConfiguration: engineConfiguration, modelStore: ModelStore())
    }

    /// A transcriber whose model is looked for in `modelStore`.
    package init(locale: Locale, transcriptionOptions: Set<TranscriptionOption>, reportingOptions: Set<ReportingOption>,
         attributeOptions: Set<ResultAttributeOption>, engineConfiguration: EngineConfiguration, modelStore: ModelStore) {
        self.transcriptionOptions = transcriptionOptions
        self.reportingOptions = reportingOptions
        self.attributeOptions = attributeOptions
        self.engineConfiguration = engineConfiguration
        selectedLocales = [locale]
        self.modelStore = modelStore
        let (stream, continuation) = AsyncThrowingStream<Result, any Error>.makeStream()
        results = stream
        let volatile = reportingOptions.contains(.volatileResults)
        processor = TranscriptionProcessor(
            settings: .init(
                locale: locale, modelID: engineConfiguration.modelID,
                volatile: volatile, stepSeconds: VolatileDecodeSchedule.agreementSeconds,
                previewSeconds: VolatileDecodeSchedule.previewSeconds(fastResults: reportingOptions.contains(.fastResults)),
                beamSize: engineConfiguration.beamSize,
                wordTimes: attributeOptions.contains(.audioTimeRange) || engineConfiguration.wordTimestamps,
                timeRangeAttributes: attributeOptions.contains(.audioTimeRange),
                confidence: attributeOptions.contains(.transcriptionConfidence),
                etiquette: transcriptionOptions.contains(.etiquetteReplacements),
                alternatives: reportingOptions.contains(.alternativeTranscriptions), store: modelStore,
                computeType: engineConfiguration.computeType, initialPrompt: engineConfiguration.initialPrompt,
                temperatures: engineConfiguration.temperatures, task: engineConfiguration.task,
                detectsLanguage: engineConfiguration.detectsLanguage,
                detectsLanguagePerWindow: engineConfiguration.detectsLanguagePerWindow && !volatile,
                encoderBatchSize: volatile ? 1 : engineConfiguration.encoderBatchSize,
                threads: engineConfiguration.threads),
            output: { continuation.yield($0) },
            end: { error in error.map { continuation.finish(throwing: $0) } ?? continuation.finish() })
    }

    // MARK: Availability and locales

    /// Whether transcription can run on this machine (it can wherever the package builds).
    public static var isAvailable: Bool { true }

    /// Locales some catalog model transcribes, installed or not.
    public static var supportedLocales: [Locale] {
        get async { LocaleModelResolver(catalog: ModelStore().catalog).supportedLocales }
    }

    /// Locales some installed model transcribes: every language of the installed multilingual models too (a
    /// locale whose default model is not installed is transcribed by an installed model that speaks it).
    public static var installedLocales: [Locale] {
        get async {
            let store = ModelStore()
            return LocaleModelResolver(catalog: store.catalog).locales(ofModels: store.installedModelIDs)
        }
    }

    /// A supported locale equivalent to `locale`: itself, else the same language in another region, preferring
    /// installed ones; nil if no catalog model speaks it. Synchronous, unlike Apple's `async` one.
    public static func supportedLocale(equivalentTo locale: Locale) -> Locale? {
        let store = ModelStore()
        let resolver = LocaleModelResolver(catalog: store.catalog)
        let installed = resolver.locales(ofModels: store.installedModelIDs)
        return resolver.supportedLocale(equivalentTo: locale, preferring: installed)
    }

    /// 16 kHz mono, Float32 or Int16; empty while the model is not installed.
    public var availableCompatibleAudioFormats: [AVAudioFormat] {
        get async {
            guard TranscriptionProcessor.modelDirectory(locale: selectedLocales[0], modelID: engineConfiguration.modelID,
                                                        store: modelStore) != nil
            else { return [] }
            return SpeechAnalyzer.speechFormats
        }
    }

    /// The catalog id of the model this transcriber runs, as the models are installed now (nil: no model transcribes
    /// its locale); with `EngineConfiguration.detectsLanguage`, the multilingual model that detects. Not in Apple's API.
    public var selectedModelID: String? { (processor as? TranscriptionProcessor)?.plannedModelID }

    // MARK: Assets

    /// The locales whose default models the transcriber needs installed; empty when `modelID` names the model.
    public var assetLocales: [Locale] { engineConfiguration.modelID == nil ? selectedLocales : [] }
    /// The catalog model the transcriber needs when `EngineConfiguration.modelID` names one. Not in Apple's API.
    public var assetModelIDs: [String] { engineConfiguration.modelID.map { [$0] } ?? [] }
    /// What the transcriber asks of its locale's model (an initial prompt, alternatives): the default installed is one
    /// that serves it (English: whisper-tiny.en rather than Moonshine). Not in Apple's API.
    public var assetNeeds: CatalogModel.Capabilities { (processor as? TranscriptionProcessor)?.settings.needs ?? [] }
}

extension SpeechTranscriber.Result: Hashable, CustomStringConvertible {
    /// Hashes the transcriptions (results that are equal have equal transcriptions).
    public func hash(into hasher: inout Hasher) {
        hasher.combine(alternatives)
    }

    /// The range, whether final, and the text, for logs.
    public var description: String { resultDescription(range, resultsFinalizationTime, String(text.characters)) }
}
