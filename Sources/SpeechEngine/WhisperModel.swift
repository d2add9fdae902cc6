import Foundation

/// A Whisper model loaded from a CTranslate2 model directory (`model.bin`, `config.json`,
/// `vocabulary.txt`/`tokenizer.json`), its weights converted at load to a compute type (fp16, fp32 or int8 files
/// alike); immutable, shareable between tasks.
/// Transcribe with a `WhisperSession` (one per concurrent task) or the convenience methods here.
public final class WhisperModel: Sendable {
    public let directory: URL
    public let dimensions: ModelDimensions
    public let config: ModelConfig
    public let tokenizer: WhisperTokenizer
    let weights: WhisperWeights
    /// Threads a session spreads its large products and loops over (the matrix libraries themselves run on one).
    public let threads: Int
    /// The type the products run in: the one asked for, resolved for this CPU and build (never `auto`).
    public var computeType: ComputeType { weights.computeType }

    /// Loads the model; `threads` sets how many threads a session uses (default: the cores available), and
    /// `computeType` the precision of its products (`.auto`: the fastest this machine runs).
    public init(directory: URL, threads: Int? = nil, computeType: ComputeType = .default) throws {
        MatrixBackend.prepare
        let threads = max(1, threads ?? Self.defaultThreads)
        self.threads = threads
        self.directory = directory
        // The tokenizer (a 2 MB JSON file parsed and its tables built) loads on another thread while the weights
        // are converted: a tenth of a second or more of every process's start. Errors are reported in the same order
        // as loading one after the other would (the weights', the configuration's, then the tokenizer's).
        let tokenizerLoad = BackgroundLoad { try WhisperTokenizer(modelDirectory: directory) }
        let file = try ModelFile(url: directory.appendingPathComponent("model.bin"))
        weights = try WhisperWeights(file: file, computeType: computeType, threads: threads)
        dimensions = weights.dimensions
        config = try ModelConfig.load(directory.appendingPathComponent("config.json"))
        tokenizer = try tokenizerLoad.value()
        try ModelConsistency(dimensions: dimensions, config: config, vocabularySize: tokenizer.vocabularySize,
                             vocabularyFile: ModelConsistency.vocabularyFile(in: directory),
                             featureSize: try ModelConsistency.featureSize(in: directory)).check()
    }

    /// Transcribes 16 kHz mono samples (a fresh session each call; keep a `WhisperSession` to reuse buffers).
    public func transcribe(samples: [Float], options: TranscriptionOptions = .init()) throws -> [Segment] {
        try WhisperSession(model: self).transcribe(samples: samples, options: options)
    }

    /// Language probabilities on the first 30 s, most likely first (multilingual models only).
    public func detectLanguage(samples: [Float]) throws -> [(language: String, probability: Double)] {
        try WhisperSession(model: self).detectLanguage(samples: samples)
    }

    /// `OPENBLAS_NUM_THREADS` if set, else the cores available.
    static var defaultThreads: Int {
        ProcessInfo.processInfo.environment["OPENBLAS_NUM_THREADS"].flatMap(Int.init)
            ?? ProcessInfo.processInfo.activeProcessorCount
    }
}
