import Foundation

/// A Whisper model loaded from a CTranslate2 model directory (`model.bin`, `config.json`,
/// `vocabulary.txt`/`tokenizer.json`): fp16 weights kept in half precision, computed in fp32; immutable,
/// shareable between tasks.
/// Transcribe with a `WhisperSession` (one per concurrent task) or the convenience methods here.
public final class WhisperModel: Sendable {
    public let directory: URL
    public let dimensions: ModelDimensions
    public let config: ModelConfig
    public let tokenizer: WhisperTokenizer
    let weights: WhisperWeights
    /// Threads a session spreads its large products and loops over (OpenBLAS itself runs on one).
    public let threads: Int

    /// Loads the model; `threads` sets how many threads a session uses (default: the cores available).
    public init(directory: URL, threads: Int? = nil) throws {
        Self.logBackendOnce
        self.threads = max(1, threads ?? Self.defaultThreads)
        self.directory = directory
        let file = try ModelFile(url: directory.appendingPathComponent("model.bin"))
        weights = try WhisperWeights(file: file)
        dimensions = weights.dimensions
        config = try ModelConfig.load(directory.appendingPathComponent("config.json"))
        tokenizer = try WhisperTokenizer(modelDirectory: directory)
    }

    /// Transcribes 16 kHz mono samples (a fresh session each call; keep a `WhisperSession` to reuse buffers).
    public func transcribe(samples: [Float], options: TranscriptionOptions = .init()) throws -> [Segment] {
        try WhisperSession(model: self).transcribe(samples: samples, options: options)
    }

    /// Language probabilities on the first 30 s, most likely first (multilingual models only).
    public func detectLanguage(samples: [Float]) throws -> [(language: String, probability: Double)] {
        try WhisperSession(model: self).detectLanguage(samples: samples)
    }

    /// Logs once per process which OpenBLAS kernels run and with how many threads.
    /// `OPENBLAS_NUM_THREADS` if set, else the cores available.
    static var defaultThreads: Int {
        ProcessInfo.processInfo.environment["OPENBLAS_NUM_THREADS"].flatMap(Int.init)
            ?? ProcessInfo.processInfo.activeProcessorCount
    }

    private static let logBackendOnce: Void = {
        BLASSettings.singleThreaded
        let line = "SpeechEngine: OpenBLAS \(BLASSettings.coreName) kernels, up to \(defaultThreads) threads\n"
        FileHandle.standardError.write(Data(line.utf8))
    }()
}
