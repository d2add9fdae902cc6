import Foundation
import SpeechAssets
import SpeechAudio
import SpeechEngine

/// Voice activity detection as an analysis module, as Apple's `SpeechDetector`.
///
/// Alone, it reports speech regions (with `reportResults`). Beside a `SpeechTranscriber` or `DictationTranscriber`
/// in one analyzer, it also gates them: they get no text for audio it calls silence, and read its regions rather
/// than run detection of their own. Final-only transcribers then give the engine only the speech, split at silences
/// into segments of at most 30 s.
///
/// Differs from Apple's: Apple's does not conform to `SpeechModule` in practice (analyzers reject it); ours is a
/// real module. Results tile the timeline: speech regions (`speechDetected`) and the silences between them, each
/// final when reported; a region is reported once the silence after it is long enough to end it, or when the
/// analyzer finalizes or finishes. The model is the catalog's `silero-vad` (`assetModelIDs`), else an energy
/// detector that takes steady sounds (hum, noise, tones) for silence; `backend` tells which runs.
public final class SpeechDetector: SpeechModule, AnalyzerDrivenModule {
    /// Whether a stretch of audio holds speech, as in Apple's Speech.
    public struct Result: SpeechModuleResult, Sendable, Equatable {
        /// The stretch of audio the result describes, on the analyzer's timeline.
        public let range: CMTimeRange
        /// Results for audio before this time will not change; ours are final when reported.
        public let resultsFinalizationTime: CMTime
        /// Whether `range` is speech (true) or silence and other sounds (false).
        public let speechDetected: Bool
    }

    /// The catalog model the detector runs when installed.
    public static let modelID = "silero-vad"

    /// Which voice activity detector a `SpeechDetector` runs. Not in Apple's API.
    public enum Backend: Sendable, Hashable {
        /// Silero VAD, the catalog model `silero-vad`.
        case sileroVAD
        /// The energy fallback, when the Silero model is not installed (or does not load): it takes steady sounds
        /// (hum, noise, tones) for silence, but is less sure than Silero about faint or noisy speech.
        case energy
    }

    /// Speech and silence regions in order, when `reportResults` is true; the stream ends when the analyzer finishes.
    public let results: AsyncThrowingStream<Result, any Error>
    /// How readily the detector calls audio speech, as given at creation.
    public let detectionOptions: DetectionOptions
    /// Whether results are delivered; when false the detector only gates transcribers.
    public let reportResults: Bool
    private let detection: SpeechDetectorProcessor
    var processor: any ModuleProcessor { detection }

    /// A detector with medium sensitivity that gates transcribers without reporting results, as Apple's `init()`.
    public convenience init() {
        self.init(detectionOptions: DetectionOptions(sensitivityLevel: .medium), reportResults: false)
    }

    /// A detector with the given sensitivity; with `reportResults`, its speech regions (and the silences between
    /// them) arrive on `results`.
    public convenience init(detectionOptions: DetectionOptions, reportResults: Bool) {
        self.init(detectionOptions: detectionOptions, reportResults: reportResults, modelStore: nil)
    }

    /// A detector looking for its model in `modelStore` (nil: the default store, `$OPENSPEECH_HOME`...).
    /// `voiceActivity`, when it gives one, makes the voice activity detector instead (a file's scores computed
    /// before, `FileAudioPass`).
    init(detectionOptions: DetectionOptions, reportResults: Bool, modelStore: ModelStore?,
         voiceActivity: (@Sendable () -> (any VoiceActivityDetector, Backend)?)? = nil) {
        self.detectionOptions = detectionOptions
        self.reportResults = reportResults
        let (stream, continuation) = AsyncThrowingStream<Result, any Error>.makeStream()
        results = stream
        detection = SpeechDetectorProcessor(
            segmentation: detectionOptions.segmentation, reportResults: reportResults, modelStore: modelStore,
            voiceActivity: voiceActivity, regions: SpeechRegionLog(), output: { continuation.yield($0) },
            end: { error in error.map { continuation.finish(throwing: $0) } ?? continuation.finish() })
    }

    /// 16 kHz mono, Float32 or Int16 (always: the energy detector needs no model).
    public var availableCompatibleAudioFormats: [AVAudioFormat] {
        get async { SpeechAnalyzer.speechFormats }
    }

    /// The Silero VAD catalog model, which the detector runs when installed (else its energy fallback).
    public var assetModelIDs: [String] { [Self.modelID] }

    /// The voice activity detector this module runs: chosen when the analyzer prepares the module (nil before),
    /// `.energy` when the `silero-vad` model is not installed. Not in Apple's API.
    public var backend: Backend? {
        get async { await detection.backend }
    }

    /// The speech this detector finds, which transcribers in the same analyzer read to skip what it calls silence.
    var speechRegions: SpeechRegionLog { detection.regions }

    /// A fresh detector stream: Silero's if the model is installed in `store` and loads (once per process,
    /// `LoadedModelCache.silero`), else the energy detector.
    static func makeVoiceActivityDetector(store: ModelStore) -> (any VoiceActivityDetector, Backend) {
        let model = store.installedDirectory(for: modelID).flatMap { try? LoadedModelCache.silero.model(in: $0) }
        return (VoiceActivityDetection.makeDetector(model: model), model == nil ? .energy : .sileroVAD)
    }
}

extension SpeechDetector.Result: CustomStringConvertible {
    /// The range, whether final, and whether it is speech, for logs.
    public var description: String {
        resultDescription(range, resultsFinalizationTime, speechDetected ? "speech" : "no speech")
    }
}
