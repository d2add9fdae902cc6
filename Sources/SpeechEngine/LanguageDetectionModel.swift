import Foundation

/// The parts of a Whisper model language detection runs, loaded for that alone: the encoder (in the compute type,
/// as `WhisperModel` loads it, so the encoding is the same), one decoder step's weights in half precision as the
/// file stores them (no int8 conversion or packing for a single step), and the embedding rows of the
/// start-of-transcript and language tokens only, not the 51,865 of the vocabulary; the tokenizer's BPE tables are not
/// built (`LanguageTokens`). Loads in a fraction of the time and memory of a `WhisperModel`; damaged files are the same
/// typed errors (`ModelError`, `WhisperTokenizerError`). Immutable, shareable; detect with a `LanguageDetectionSession`.
public final class LanguageDetectionModel: Sendable {
    public let directory: URL
    public let dimensions: ModelDimensions
    let weights: WhisperWeights
    let tokens: LanguageTokens
    let threads: Int
    /// The type the encoder's products run in (resolved, never `auto`).
    public var computeType: ComputeType { weights.computeType }
    /// Whether the model knows many languages (an English-only model detects English, always).
    public var isMultilingual: Bool { tokens.isMultilingual }

    /// Loads what detection needs of the model in `directory`; `threads` and `computeType` as `WhisperModel`'s.
    public init(directory: URL, threads: Int? = nil, computeType: ComputeType = .default) throws {
        MatrixBackend.prepare
        self.threads = max(1, threads ?? WhisperModel.defaultThreads)
        self.directory = directory
        let file = try ModelFile(url: directory.appendingPathComponent("model.bin"))
        let config = try ModelConfig.load(directory.appendingPathComponent("config.json"))
        tokens = try LanguageTokens(modelDirectory: directory, languageIDs: config.languageIDs)
        // Row 0: start of transcript, the decoder's one input; rows 1…: the language tokens, its only outputs.
        weights = try WhisperWeights(file: file, computeType: computeType, threads: self.threads,
                                     scope: .step(tokens: [tokens.sot] + tokens.languages.map(\.id)))
        dimensions = weights.dimensions
        try ModelConsistency(dimensions: dimensions, config: config, vocabularySize: tokens.vocabularySize,
                             vocabularyFile: ModelConsistency.vocabularyFile(in: directory),
                             featureSize: try ModelConsistency.featureSize(in: directory)).check()
    }
}
