import Foundation
import SpeechAssets
import SpeechAudio
import SpeechEngine

/// Who spoke when: the speech of a recording (the speech detector's regions), CAM++ speaker embeddings of 1.5 s
/// windows through it, clustered across the recording into speakers, as turns labelled "Speaker 1", "Speaker 2"... in
/// order of first appearance. OpenSpeech extension: Apple's Speech framework has no speaker module. Where two people
/// speak at once (found by the segmentation model around speaker changes, when it is installed), both speakers' turns
/// cover it; without that model, overlapping speech is given to one speaker. With `Options.knownSpeakers`, a speaker
/// who sounds like a known speaker's reference is labelled with that name (`KnownSpeakerMatching`).
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
        /// People whose voices are known: the speaker most like each one's reference (one speaker per reference, at
        /// cosine similarity 0.7 or more between the reference's mean embedding and the speaker's) is labelled with
        /// its name; the other speakers are "Speaker 1", "Speaker 2"... among themselves, in order of first
        /// appearance. A reference whose person does not speak names nobody.
        public var knownSpeakers: [KnownSpeaker]

        public init(speakers: Int? = nil, minSpeakers: Int? = nil, maxSpeakers: Int? = nil, threads: Int? = nil,
                    knownSpeakers: [KnownSpeaker] = []) {
            self.speakers = speakers
            self.minSpeakers = minSpeakers
            self.maxSpeakers = maxSpeakers
            self.threads = threads
            self.knownSpeakers = knownSpeakers
        }

        /// Throws `SpeakerDiarizationError.invalidSpeakerCount` for counts below 1 or contradicting each other,
        /// `.invalidKnownSpeakers` for a known speaker's name that is empty or given twice.
        public func validate() throws {
            var names = Set<String>()
            for known in knownSpeakers {
                guard !known.name.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
                    throw SpeakerDiarizationError.invalidKnownSpeakers("A known speaker's name is empty; give each one a name.")
                }
                guard names.insert(known.name).inserted else {
                    throw SpeakerDiarizationError.invalidKnownSpeakers(
                        "The known speaker name \(known.name) is given twice; give each person one reference.")
                }
            }
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
        /// In time order; turns of different speakers overlap where two people speak at once.
        public var turns: [SpeakerTurn]
        /// The speakers' labels, in order of first appearance.
        public var speakers: [String]
        /// A sentence when fewer speakers were found than asked for (`Options.speakers`, `minSpeakers`), nil otherwise.
        public var notice: String?
        /// The names of `Options.knownSpeakers` heard in the recording, in order of first appearance: each is the
        /// label of one of `speakers`.
        public var namedSpeakers: [String] = []
    }

    /// The catalog model of the speaker embeddings.
    public static let embeddingModelID = "campplus-sv-zh-en"
    /// The catalog model that finds overlapping speech.
    public static let segmentationModelID = "pyannote-segmentation-3.0"

    public let options: Options
    public let store: ModelStore
    private let executor = EngineExecutor(label: "openspeech.diarization")
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    public init(options: Options = Options(), store: ModelStore = ModelStore()) {
        self.options = options
        self.store = store
    }

    /// The catalog models diarization runs with: the speaker embeddings, the segmentation model (without it, one
    /// speaker at a time), then the speech detector (without it, the energy detector finds the speech).
    public nonisolated var requiredModelIDs: [String] { [Self.embeddingModelID, Self.segmentationModelID, SpeechDetector.modelID] }

    /// Installs the required models that are missing.
    public nonisolated func installModels() async throws {
        for id in requiredModelIDs where store.installedDirectory(for: id) == nil { try await store.install(id) }
    }

    /// The speakers of `url`'s audio (any file FFmpeg reads). Throws `AudioError` for a file that cannot be read.
    public func diarize(contentsOf url: URL) throws -> Result {
        try diarize(samples: MonoAudio.load(contentsOf: url))
    }

    /// The speakers of 16 kHz mono `samples`. Speech too short to tell speakers apart is one speaker; none, no turns.
    /// Throws `SpeakerDiarizationError` for invalid options, a missing model and a known speaker's reference with too
    /// little speech (checked first, before the recording is worked on).
    public func diarize(samples: [Float]) throws -> Result {
        try options.validate()
        guard let directory = store.installedDirectory(for: Self.embeddingModelID) else {
            throw SpeakerDiarizationError.modelNotInstalled(Self.embeddingModelID)
        }
        let embedder = SpeakerEmbedder(model: try LoadedModelCache.speakerEmbeddings.model(in: directory))
        let (detector, _) = SpeechDetector.makeVoiceActivityDetector(store: store)
        let threads = options.threads ?? ProcessInfo.processInfo.activeProcessorCount
        let references = try options.knownSpeakers.map { known in
            try Self.referenceEmbedding(known, detector: detector, embedder: embedder, threads: threads)
        }
        let clustering = SpeakerClustering(speakers: options.speakers, minSpeakers: options.minSpeakers ?? 1,
                                           maxSpeakers: options.maxSpeakers)
        let segmentation = try store.installedDirectory(for: Self.segmentationModelID)
            .map { try LoadedModelCache.segmentation.model(in: $0) }
        let found = SpeakerDiarization(embedder: embedder, segmentation: segmentation, clustering: clustering)
            .diarize(samples: samples, speech: Self.speech(in: samples, detector: detector), threads: threads)
        let matching = KnownSpeakerMatching(references: references, centroids: found.centroids)
        let labels = matching.labels(names: options.knownSpeakers.map(\.name))
        let turns = found.turns.map { SpeakerTurn(start: $0.start, end: $0.end, speaker: labels[$0.speaker]) }
        let asked = options.speakers ?? options.minSpeakers ?? 0
        let notice = found.speakerCount < asked
            ? "\(asked) speakers were asked for, but the speech tells only \(found.speakerCount) apart." : nil
        return Result(turns: turns, speakers: labels, notice: notice,
                      namedSpeakers: matching.referenceOfSpeaker.compactMap { $0.map { options.knownSpeakers[$0].name } })
    }

    /// Where `samples` holds speech, as the diarizer looks for it.
    private static func speech(in samples: [Float], detector: any VoiceActivityDetector) -> [SpeechRegion] {
        SpeechSegmenter.regions(probabilities: detector.probabilities(of: samples), totalSamples: samples.count,
                                options: SpeechSegmentationOptions(threshold: 0.55))
    }

    /// The embedding of a known speaker's reference: the mean of its windows' embeddings (as a speaker's centroid
    /// is), through its speech only. Throws `.unusableReference` below `KnownSpeaker.minimumSpeechSeconds` of speech.
    private static func referenceEmbedding(_ known: KnownSpeaker, detector: any VoiceActivityDetector,
                                           embedder: SpeakerEmbedder, threads: Int) throws -> [Float] {
        let speech = speech(in: known.samples, detector: detector)
        let seconds = speech.reduce(0) { $0 + $1.duration }
        guard seconds >= KnownSpeaker.minimumSpeechSeconds else {
            throw SpeakerDiarizationError.unusableReference(name: known.name, speechSeconds: seconds)
        }
        let windows = DiarizationWindows(speech: speech).ranges
        let embeddings = embedder.embeddings(samples: known.samples, ranges: windows, threads: threads)
        return SpeakerClustering.centroids(embeddings: embeddings, dimension: CAMPlusPlus.embeddingSize,
                                           labels: [Int](repeating: 0, count: windows.count))[0]
    }
}
