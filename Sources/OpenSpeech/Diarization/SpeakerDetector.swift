import Foundation
import SpeechAssets
import SpeechAudio
import SpeechEngine

/// Who is speaking, live: an analysis module that labels speech with speakers as it is heard. OpenSpeech extension:
/// Apple's Speech framework has no speaker module. For a whole recording, `SpeakerDiarizer` clusters with hindsight
/// (and can be held to a speaker count); this module decides as it goes and never changes a label it gave.
///
/// CAM++ embeddings of 1.5 s windows every 0.25 s (`LiveSpeakerWindows`), each window where the speech detector hears
/// speech labelled with the speaker it sounds like (`OnlineSpeakerClustering`): "Speaker 1", "Speaker 2"... in order
/// of first appearance. Results tile the timeline: each is the 0.25 s at a window's centre (the first and last
/// stretches longer), final when reported, with its speaker or none (silence); consecutive results of one speaker are
/// one turn. A change of speaker is labelled about 1.1 s after it is heard (a new voice 0.25 s later: its first window
/// is held until a second confirms it), 98 % of them within 2 s on the benchmark's conversations. Runs its own voice
/// activity stream (the catalog's `silero-vad`, else the energy detector) so that its windows are a function of the
/// audio alone.
public final class SpeakerDetector: SpeechModule, AnalyzerDrivenModule {
    /// A stretch of the audio and who speaks in it.
    public struct Result: SpeechModuleResult, Sendable, Equatable {
        /// The stretch, on the analyzer's timeline.
        public let range: CMTimeRange
        /// Final when reported: the end of `range`.
        public let resultsFinalizationTime: CMTime
        /// The speaker's number, from 1 in order of first appearance; nil where nobody speaks.
        public let speakerNumber: Int?
        /// "Speaker 1", "Speaker 2"...; nil where nobody speaks.
        public var speaker: String? { speakerNumber.map { SpeakerTurn.label($0 - 1) } }
    }

    public struct Options: Sendable, Equatable {
        /// At most this many speakers: once reached, a new voice goes to the speaker it is most like.
        public var maxSpeakers: Int?
        /// Threads for the embedding model (default 1: live transcription beside it needs the others).
        public var threads: Int

        public init(maxSpeakers: Int? = nil, threads: Int = 1) {
            self.maxSpeakers = maxSpeakers
            self.threads = threads
        }
    }

    /// Labelled speech in time order; the stream ends when the analyzer finishes.
    public let results: AsyncThrowingStream<Result, any Error>
    public let options: Options
    private let labelling: SpeakerDetectorProcessor
    var processor: any ModuleProcessor { labelling }

    /// A module looking for its models in `modelStore` (nil: the default store, `$OPENSPEECH_HOME`...).
    public init(options: Options = Options(), modelStore: ModelStore? = nil) {
        self.options = options
        let (stream, continuation) = AsyncThrowingStream<Result, any Error>.makeStream()
        results = stream
        labelling = SpeakerDetectorProcessor(
            options: options, store: modelStore ?? ModelStore(), output: { continuation.yield($0) },
            end: { error in error.map { continuation.finish(throwing: $0) } ?? continuation.finish() })
    }

    /// 16 kHz mono, Float32 or Int16, when the speaker-embedding model is installed; none otherwise.
    public var availableCompatibleAudioFormats: [AVAudioFormat] {
        get async {
            labelling.store.installedDirectory(for: SpeakerDiarizer.embeddingModelID) == nil ? [] : SpeechAnalyzer.speechFormats
        }
    }

    /// The speaker embeddings (`campplus-sv-zh-en`) and the speech detector (`silero-vad`).
    public var assetModelIDs: [String] { [SpeakerDiarizer.embeddingModelID, SpeechDetector.modelID] }
}
