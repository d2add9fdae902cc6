import Foundation
import SpeechAssets
import SpeechAudio
import SpeechEngine

/// Who spoke when: the speech of a recording (the speech detector's regions), CAM++ speaker embeddings of 1.5 s
/// windows through it, clustered across the recording into speakers, as turns labelled "Speaker 1", "Speaker 2"... in
/// order of first appearance. OpenSpeech extension: Apple's Speech framework has no speaker module. Overlapping speech
/// is given to one speaker (the one the windows around it sound most like).
///
/// The work runs on a queue of its own, off the cooperative pool. The same audio and options give the same turns
/// whatever the thread count.
public actor SpeakerDiarizer {
    public struct Options: Sendable, Equatable {
        /// The number of speakers, when known: the recording is split into exactly as many as its speech allows.
        public var speakers: Int?
        /// At least this many speakers (as far as the speech allows).
        public var minSpeakers: Int?
        /// At most this many speakers.
        public var maxSpeakers: Int?
        /// Threads for the embedding model; nil: the cores available.
        public var threads: Int?

        public init(speakers: Int? = nil, minSpeakers: Int? = nil, maxSpeakers: Int? = nil, threads: Int? = nil) {
            self.speakers = speakers
            self.minSpeakers = minSpeakers
            self.maxSpeakers = maxSpeakers
            self.threads = threads
        }

        /// Throws `SpeakerDiarizationError.invalidSpeakerCount` for counts below 1 or contradicting each other.
        public func validate() throws {
            for (name, value) in [("speakers", speakers), ("minimum speakers", minSpeakers), ("maximum speakers", maxSpeakers)] {
                if let value, value < 1 || value > 100 {
                    throw SpeakerDiarizationError.invalidSpeakerCount("The \(name) must be between 1 and 100, not \(value).")
                }
            }
            if let minSpeakers, let maxSpeakers, minSpeakers > maxSpeakers {
                throw SpeakerDiarizationError.invalidSpeakerCount(
                    "The minimum speakers (\(minSpeakers)) is more than the maximum (\(maxSpeakers)).")
            }
            if let speakers, minSpeakers.map({ speakers < $0 }) == true || maxSpeakers.map({ speakers > $0 }) == true {
                throw SpeakerDiarizationError.invalidSpeakerCount(
                    "\(speakers) speakers is outside the minimum and maximum given; give the count alone.")
            }
        }
    }

    /// The speakers found in a recording.
    public struct Result: Sendable, Equatable {
        /// In time order, none overlapping.
        public var turns: [SpeakerTurn]
        /// The speakers' labels, in order of first appearance.
        public var speakers: [String]
        /// A sentence when fewer speakers were found than asked for (`Options.speakers`, `minSpeakers`), nil otherwise.
        public var notice: String?
    }

    /// The catalog model of the speaker embeddings.
    public static let embeddingModelID = "campplus-sv-zh-en"

    public let options: Options
    public let store: ModelStore
    private let executor = EngineExecutor(label: "openspeech.diarization")
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    public init(options: Options = Options(), store: ModelStore = ModelStore()) {
        self.options = options
        self.store = store
    }

    /// The catalog models diarization runs with: the speaker embeddings, then the speech detector (without it, the
    /// energy detector finds the speech).
    public nonisolated var requiredModelIDs: [String] { [Self.embeddingModelID, SpeechDetector.modelID] }

    /// Installs the required models that are missing.
    public nonisolated func installModels() async throws {
        for id in requiredModelIDs where store.installedDirectory(for: id) == nil { try await store.install(id) }
    }

    /// The speakers of `url`'s audio (any file FFmpeg reads). Throws `AudioError` for a file that cannot be read.
    public func diarize(contentsOf url: URL) throws -> Result {
        try diarize(samples: MonoAudio.load(contentsOf: url))
    }

    /// The speakers of 16 kHz mono `samples`. Speech too short to tell speakers apart is one speaker; none, no turns.
    /// Throws `SpeakerDiarizationError` for invalid options and a missing model.
    public func diarize(samples: [Float]) throws -> Result {
        try options.validate()
        guard let directory = store.installedDirectory(for: Self.embeddingModelID) else {
            throw SpeakerDiarizationError.modelNotInstalled(Self.embeddingModelID)
        }
        let model = try SpeakerModelCache.shared.model(in: directory)
        let (detector, _) = SpeechDetector.makeVoiceActivityDetector(store: store)
        let speech = SpeechSegmenter.regions(probabilities: detector.probabilities(of: samples), totalSamples: samples.count,
                                             options: SpeechSegmentationOptions(threshold: 0.55))
        let clustering = SpeakerClustering(speakers: options.speakers, minSpeakers: options.minSpeakers ?? 1,
                                           maxSpeakers: options.maxSpeakers)
        let threads = options.threads ?? ProcessInfo.processInfo.activeProcessorCount
        let found = SpeakerDiarization(embedder: SpeakerEmbedder(model: model), clustering: clustering)
            .diarize(samples: samples, speech: speech, threads: threads)
        let turns = found.turns.map { SpeakerTurn(start: $0.start, end: $0.end, speaker: SpeakerTurn.label($0.speaker)) }
        let asked = options.speakers ?? options.minSpeakers ?? 0
        let notice = found.speakerCount < asked
            ? "\(asked) speakers were asked for, but the speech tells only \(found.speakerCount) apart." : nil
        return Result(turns: turns, speakers: (0..<found.speakerCount).map(SpeakerTurn.label), notice: notice)
    }
}
