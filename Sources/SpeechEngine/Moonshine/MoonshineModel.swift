import Foundation

/// A Moonshine model loaded from its directory (`encoder_model.ort`, `decoder_model_merged.ort`, `tokenizer.bin`, as
/// the `moonshine-base-en` catalog entry installs them); immutable, shareable between tasks. A clip costs its own
/// length: the encoder runs on the audio as it is, never padded to a fixed window.
public final class MoonshineModel: Sendable {
    public let directory: URL
    public let tokenizer: MoonshineTokenizer
    let weights: MoonshineWeights
    /// Threads a transcription spreads its large products and loops over.
    public let threads: Int

    /// Moonshine is trained on segments of up to about 30 s; longer audio goes through a detector's speech chunks.
    public static let longestClipSeconds = 30.0
    /// Tokens a second of audio may take at most before decoding stops (a run-away loop's end): Moonshine's own
    /// budget, above any speech's rate.
    public static let tokensPerSecond = 6.5

    /// Loads the model; `threads` sets how many threads a transcription uses (default: the cores available).
    /// Throws `ModelError.missingFile`, else `ORTFormatError` for a damaged or foreign file.
    public init(directory: URL, threads: Int? = nil) throws {
        MatrixBackend.prepare
        self.directory = directory
        self.threads = max(1, threads ?? WhisperModel.defaultThreads)
        func graph(_ name: String) throws -> ORTWeights {
            let url = directory.appendingPathComponent(name)
            guard FileManager.default.fileExists(atPath: url.path) else { throw ModelError.missingFile(url) }
            return try ORTWeights(model: ORTModel(url: url))
        }
        weights = try MoonshineWeights(encoder: try graph("encoder_model.ort"), decoder: try graph("decoder_model_merged.ort"))
        tokenizer = try MoonshineTokenizer(url: directory.appendingPathComponent("tokenizer.bin"))
        guard tokenizer.count <= weights.vocabularySize else {
            throw ORTFormatError.malformed("tokenizer.bin has \(tokenizer.count) pieces for \(weights.vocabularySize) logits")
        }
    }

    /// The tokens of one clip of 16 kHz mono `samples` (at most `longestClipSeconds`), without the start and end
    /// tokens: the encoder over the clip, then the decoder until the end token or `tokensPerSecond` of the clip's
    /// length, greedy (`beamSize` 1 or less) or by beam search (`TokenBeamSearch`). Empty for a clip under one encoder frame
    /// (56 ms). A sample that is not finite is an `EngineError.invalidSample`, a clip over `longestClipSeconds` an
    /// `EngineError.windowTooLong` (the encoder's memory grows with the clip; longer audio goes in chunks).
    public func tokens(samples: [Float], beamSize: Int = 1) throws -> [Int] {
        try Self.check(clip: samples)
        let beams = max(1, beamSize)
        return MoonshineTranscription(model: self, maxBeams: beams).tokens(samples: samples, beamSize: beams)
    }

    /// Refuses a clip Moonshine cannot take: over `longestClipSeconds` (`EngineError.windowTooLong`) or holding a
    /// sample that is not finite (`EngineError.invalidSample`).
    static func check(clip samples: [Float]) throws {
        let seconds = Double(samples.count) / 16_000
        guard seconds <= longestClipSeconds else { throw EngineError.windowTooLong(seconds: seconds) }
        try WhisperSession.validate(samples)
    }
}

/// One transcription's working state (the encoder's and decoder's buffers and caches), for one task at a time.
final class MoonshineTranscription {
    let model: MoonshineModel
    private let encoder: MoonshineEncoder
    private let decoder: MoonshineDecoder

    /// A clip's decoding: its tokens (without the start and end tokens), each one's log-probability (empty after a
    /// beam search that recorded nothing), their mean, and, when asked for, the cross-attention of the recorded heads
    /// over the encoder's frames (`MoonshineDecoder.attentionRecord`: one step per token and one for the end, the
    /// start token's first).
    struct Decoding {
        var tokens: [Int]
        var logProbabilities: [Double]
        var averageLogProbability: Double
        var attention: [Float]?
        var frames: Int
    }

    init(model: MoonshineModel, maxBeams: Int = 1) {
        self.model = model
        let parallel = Parallel(threads: model.threads)
        encoder = MoonshineEncoder(weights: model.weights, parallel: parallel)
        let capacity = Int((MoonshineModel.longestClipSeconds * MoonshineModel.tokensPerSecond).rounded(.up)) + 2
        decoder = MoonshineDecoder(weights: model.weights, capacity: capacity, maxBeams: maxBeams, parallel: parallel)
    }

    /// The most beams a search may keep.
    var maxBeams: Int { decoder.maxBeams }

    /// The token budget of a clip of `samples` samples (at least one token).
    static func budget(samples: Int) -> Int {
        max(1, Int(Double(samples) / 16_000 * MoonshineModel.tokensPerSecond))
    }

    /// `MoonshineModel.tokens(samples:beamSize:)`; `beamSize` at most the `maxBeams` this was made for.
    func tokens(samples: [Float], beamSize: Int) -> [Int] {
        decode(samples: samples, beamSize: beamSize, attentionHeads: []).tokens
    }

    /// The least mean log-probability of a clip's tokens, when its first step chose the end token, for the text read
    /// past it to be kept. Moonshine ends some clips of speech at once, taking their opening (half a second of silence
    /// or noise, the tail of a word before a pause) for the end of speech; read past the end, its first tokens there
    /// have mean log-probabilities of −0.07 to −0.16, the single words it writes over noise, a tone or a click −0.4 to
    /// −1.0 (ONNX Runtime on the same files, eight clips, the end token counted; `MoonshineSessionTests`).
    static let openingEndLeastLogProbability = -0.3

    /// Decodes a clip (greedy for `beamSize` 1, else beam search) into at most `maxTokens` tokens (nil: the clip's
    /// budget), recording the cross-attention of `attentionHeads` over the chosen tokens (none: no record). Greedy
    /// decoding records as it goes; a beam search's winner is run through the decoder once more. With
    /// `readsPastOpeningEnd`, a first step that chooses the end token is not the end: the first token is chosen among
    /// the others, and the tokens are kept when their mean log-probability reaches `openingEndLeastLogProbability`
    /// (else none: nothing was said). With `dropsGuessedEnding` (greedy, ended by the end token), the words written
    /// after the model took the speech for over are left out (`GuessedEnding.moonshine`). Without either the decoding
    /// is the model's own (ONNX Runtime's greedy tokens).
    ///
    /// `biasing` (contextual biasing's phrases, `ContextualBiasing`) is added to each beam's scores before its next
    /// token is chosen; a greedy token's log-probability stays the model's own.
    func decode(samples: [Float], beamSize: Int, maxTokens: Int? = nil,
                attentionHeads: [(layer: Int, head: Int)], readsPastOpeningEnd: Bool = false,
                dropsGuessedEnding: Bool = false, biasing: ContextualBiasing? = nil) -> Decoding {
        precondition(beamSize >= 1 && beamSize <= decoder.maxBeams, "MoonshineTranscription: a beam it was not made for")
        let frames = encoder.frames(samples: samples.count)
        guard frames > 0 else {
            return Decoding(tokens: [], logProbabilities: [], averageLogProbability: 0, attention: nil, frames: 0)
        }
        let states = samples.withUnsafeBufferPointer { encoder.encode($0) }
        let vocabulary = model.weights.vocabularySize, end = MoonshineTokenizer.endOfTranscript
        decoder.record(heads: beamSize == 1 ? attentionHeads : [])
        decoder.start(encoderStates: states, frames: frames)
        let budget = min(Self.budget(samples: samples.count), decoder.capacity - 1, max(1, maxTokens ?? .max))
        var search = TokenBeamSearch(beamSize: beamSize, endToken: end)
        var next = [MoonshineTokenizer.startOfTranscript]
        var greedyLogProbabilities: [Double] = []
        // The end token's log-probability at each greedy step (for `GuessedEnding`).
        var endLogProbabilities: [Double] = []
        let guardsEnding = dropsGuessedEnding && beamSize == 1
        greedyLogProbabilities.reserveCapacity(beamSize == 1 ? budget : 0)  // no growth per token
        endLogProbabilities.reserveCapacity(guardsEnding ? budget : 0)
        var openingEnd = false, ended = false
        // The biased rows, one per beam (allocated once per clip, only with biasing).
        var biased = biasing.map { _ in [Float](repeating: 0, count: beamSize * vocabulary) } ?? []
        for step in 0..<budget {
            let logits = decoder.step(next)
            if step == 0 && readsPastOpeningEnd {
                openingEnd = Vector.max(logits, count: vocabulary) == logits[end]
            }
            let scoreBefore = search.scores[0]
            let chosen = biased.withUnsafeMutableBufferPointer { rows -> (origins: [Int], tokens: [Int])? in
                guard let biasing, let rows = rows.baseAddress else {
                    return search.advance(logits: logits, vocabulary: vocabulary, isLast: step + 1 == budget,
                                          allowsEnd: !openingEnd || step > 0)
                }
                for (beam, sequence) in search.sequences.enumerated() {
                    let row = rows + beam * vocabulary
                    row.update(from: logits + beam * vocabulary, count: vocabulary)
                    biasing.apply(row, count: vocabulary, sampled: sequence[...])
                }
                return search.advance(logits: rows, vocabulary: vocabulary, isLast: step + 1 == budget,
                                      allowsEnd: !openingEnd || step > 0)
            }
            guard let chosen else {
                ended = step + 1 < budget  // the end token chosen, not the budget's last step
                break
            }
            // Greedy: the search's cumulative score grew by the chosen token's log-probability (with biasing, the
            // model's own is read from its logits).
            if beamSize == 1 {
                greedyLogProbabilities.append(biasing == nil ? Double(search.scores[0] - scoreBefore)
                                              : Self.logProbability(of: chosen.tokens[0], in: logits, vocabulary))
            }
            if guardsEnding { endLogProbabilities.append(Self.logProbability(of: end, in: logits, vocabulary)) }
            decoder.reorder(chosen.origins)
            next = chosen.tokens
        }
        var tokens = search.best
        var greedy = beamSize == 1 ? Array(greedyLogProbabilities.prefix(tokens.count)) : []
        var averageLogProbability = beamSize == 1 ? Self.average(greedy) : search.bestScore ?? 0
        if openingEnd && averageLogProbability < Self.openingEndLeastLogProbability {
            return Decoding(tokens: [], logProbabilities: [], averageLogProbability: 0, attention: nil, frames: frames)
        }
        // Only a decoding that ended (not one its budget cut short) has an ending to judge.
        if guardsEnding && ended {
            let kept = GuessedEnding.moonshine.kept(logProbabilities: greedy, endLogProbabilities: endLogProbabilities,
                                                    startsWord: { [tokens, model] in model.tokenizer.startsWord(tokens[$0]) })
            if kept < tokens.count {
                tokens.removeLast(tokens.count - kept)
                greedy.removeLast(greedy.count - kept)
                averageLogProbability = Self.average(greedy)
            }
        }
        let recordComplete = decoder.length == tokens.count + 1
        if attentionHeads.isEmpty || (beamSize == 1 && recordComplete) {
            return Decoding(tokens: tokens, logProbabilities: greedy, averageLogProbability: averageLogProbability,
                            attention: attentionHeads.isEmpty ? nil : decoder.attentionRecord, frames: frames)
        }
        // The chosen tokens run once more, one beam, recording (a beam search's winner, or a greedy run cut short
        // by its budget before the last token's step).
        decoder.record(heads: attentionHeads)
        decoder.restart()
        var logProbabilities: [Double] = []
        for (position, token) in ([MoonshineTokenizer.startOfTranscript] + tokens).enumerated() {
            let logits = decoder.step([token])
            if position < tokens.count {
                logProbabilities.append(Self.logProbability(of: tokens[position], in: logits, vocabulary))
            }
        }
        return Decoding(tokens: tokens, logProbabilities: logProbabilities,
                        averageLogProbability: Self.average(logProbabilities), attention: decoder.attentionRecord,
                        frames: frames)
    }

    private static func average(_ values: [Double]) -> Double {
        values.isEmpty ? 0 : values.reduce(0, +) / Double(values.count)
    }

    private static func logProbability(of token: Int, in logits: UnsafePointer<Float>, _ vocabulary: Int) -> Double {
        Double(logits[token] - Vector.logSumExp(logits, count: vocabulary))
    }
}
