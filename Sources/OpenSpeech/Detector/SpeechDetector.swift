import Foundation
import SpeechAssets
import SpeechAudio
import SpeechEngine

/// Voice activity detection as an analysis module, as Apple's `SpeechDetector`.
///
/// Alone, it reports speech regions (with `reportResults`). Beside a `SpeechTranscriber` or `DictationTranscriber`
/// in one analyzer, it also gates them: they get no text for audio it calls silence.
///
/// Differs from Apple's: Apple's does not conform to `SpeechModule` in practice (analyzers reject it); ours is a
/// real module. Results tile the timeline: speech regions (`speechDetected`) and the silences between them, each
/// final when reported; a region is reported once the silence after it is long enough to end it, or when the
/// analyzer finalizes or finishes. The model is the catalog's `silero-vad` (`assetModelIDs`), else an energy
/// detector that takes steady sounds (hum, noise, tones) for silence.
public final class SpeechDetector: SpeechModule, AnalyzerDrivenModule {
    /// Whether a stretch of audio holds speech, as in Apple's Speech.
    public struct Result: SpeechModuleResult, Sendable, Equatable {
        public let range: CMTimeRange
        public let resultsFinalizationTime: CMTime
        /// Whether `range` is speech (true) or silence and other sounds (false).
        public let speechDetected: Bool
    }

    /// The catalog model the detector runs when installed.
    public static let modelID = "silero-vad"

    public let results: AsyncThrowingStream<Result, any Error>
    public let detectionOptions: DetectionOptions
    /// Whether results are delivered; when false the detector only gates transcribers.
    public let reportResults: Bool
    let processor: any ModuleProcessor

    /// A detector with medium sensitivity that gates transcribers without reporting results, as Apple's `init()`.
    public convenience init() {
        self.init(detectionOptions: DetectionOptions(sensitivityLevel: .medium), reportResults: false)
    }

    public init(detectionOptions: DetectionOptions, reportResults: Bool) {
        self.detectionOptions = detectionOptions
        self.reportResults = reportResults
        let (stream, continuation) = AsyncThrowingStream<Result, any Error>.makeStream()
        results = stream
        processor = SpeechDetectorProcessor(
            segmentation: detectionOptions.segmentation, reportResults: reportResults,
            output: { continuation.yield($0) },
            end: { error in error.map { continuation.finish(throwing: $0) } ?? continuation.finish() })
    }

    /// 16 kHz mono, Float32 or Int16 (always: the energy detector needs no model).
    public var availableCompatibleAudioFormats: [AVAudioFormat] {
        get async { SpeechAnalyzer.speechFormats }
    }

    public var assetModelIDs: [String] { [Self.modelID] }

    /// What transcribers in the same analyzer need to skip what this detector calls silence.
    var gateConfiguration: SpeechGate.Configuration {
        SpeechGate.Configuration(segmentation: detectionOptions.segmentation)
    }

    /// A fresh detector stream: Silero's if the model is installed and loads, else the energy detector.
    static func makeVoiceActivityDetector() -> any VoiceActivityDetector {
        let model = ModelStore().installedDirectory(for: modelID).flatMap { try? SileroVAD(directory: $0) }
        return VoiceActivityDetection.makeDetector(model: model)
    }
}
