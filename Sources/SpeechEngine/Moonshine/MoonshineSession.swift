import Foundation

/// Transcription with a Moonshine model: its encoder and decoder memory, for one task at a time (not for concurrent
/// use). A window (live) is one clip decoded as it is; a long recording is cut into clips at pauses (`ClipCuts`). Each
/// clip gives one segment per sentence when word times are asked for, else one segment spanning the clip (Moonshine
/// writes no timestamps of its own). It hears English only, takes no prompt (previous text and an initial prompt are
/// not given to it), favours the biasing phrases (`TranscriptionOptions.biasingPhrases`, contextual biasing over its
/// own tokens), and samples no fallback temperatures.
public final class MoonshineSession {
    public let model: MoonshineModel
    private let transcription: MoonshineTranscription
    /// The last biasing built (live transcription decodes with the same phrases again and again).
    private var biasingCache: (phrases: [String], biasing: ContextualBiasing)?
    /// Phrases to tokens, built for the first biasing.
    private lazy var phraseEncoder = MoonshineTokenizer.Encoder(model.tokenizer)

    public init(model: MoonshineModel, maxBeams: Int = 1) {
        self.model = model
        transcription = MoonshineTranscription(model: model, maxBeams: max(1, maxBeams))
    }

    /// The segments of one clip of at most `MoonshineModel.longestClipSeconds`, times shifted by `timeOffset`
    /// seconds; `seek` (10 ms frames) is recorded in them. Empty when nothing was said. The clip is decoded from its
    /// first sound (`ClipOnset.moonshine`), and past an end the model chose at once when what follows is sure
    /// (`MoonshineTranscription.openingEndLeastLogProbability`): Moonshine writes nothing for some clips of speech
    /// opening on silence or on a word's tail.
    func segments(clip: [Float], timeOffset: Double, seek: Int, options: TranscriptionOptions,
                  wordTimes: Bool) throws -> [Segment] {
        try MoonshineModel.check(clip: clip)
        guard let onset = clip.withUnsafeBufferPointer({ ClipOnset.moonshine.start(of: $0) }) else { return [] }
        let samples = onset == 0 ? clip : Array(clip[onset...])
        let timeOffset = timeOffset + Double(onset) / 16_000
        let seconds = Double(samples.count) / 16_000
        let beams = min(max(1, options.beamSize), transcription.maxBeams)
        let heads = wordTimes ? MoonshineWordAlignment.alignmentHeads : []
        let decoding = transcription.decode(samples: samples, beamSize: beams, maxTokens: options.maxNewTokens,
                                            attentionHeads: heads, readsPastOpeningEnd: true, dropsGuessedEnding: true,
                                            biasing: contextualBiasing(options))
        let text = model.tokenizer.decode(decoding.tokens)
        guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { return [] }
        let clip = Segment(id: 1, seek: seek, start: timeOffset, end: timeOffset + seconds, text: text,
                           tokens: decoding.tokens, avgLogProb: decoding.averageLogProbability,
                           compressionRatio: CompressionRatio.of(text), noSpeechProb: 0, temperature: 0, words: nil,
                           alternatives: nil, language: "en")
        guard let attention = decoding.attention else { return [clip] }
        let words = MoonshineWordAlignment.words(
            tokens: decoding.tokens, probabilities: decoding.logProbabilities,
            headScores: MoonshineWordAlignment.headScores(attention, recorded: heads.count, frames: decoding.frames,
                                                          selecting: Array(heads.indices)),
            frames: decoding.frames, tokenizer: model.tokenizer, prependPunctuations: options.prependPunctuations,
            appendPunctuations: options.appendPunctuations)
        guard !words.isEmpty else { return [clip] }
        return Self.sentences(words).map { sentence in
            var segment = clip
            segment.words = sentence.map {
                Word(start: WordTimestamps.round2(timeOffset + $0.start), end: WordTimestamps.round2(timeOffset + $0.end),
                     word: $0.word, probability: $0.probability)
            }
            segment.text = sentence.map(\.word).joined()
            segment.tokens = sentence.flatMap(\.tokens)
            segment.start = segment.words![0].start
            segment.end = segment.words![sentence.count - 1].end
            return segment
        }
    }

    /// Moonshine's weight against Whisper's for the same phrases (`TranscriptionOptions.biasingWeight` × this).
    static let biasingScale: Float = 0.75

    /// The contextual biasing for `options`' phrases (nil: none, or no weight), with Moonshine's tokenizer: its
    /// special tokens come first, so every piece is text (`firstSpecial` past the vocabulary).
    func contextualBiasing(_ options: TranscriptionOptions) -> ContextualBiasing? {
        guard !options.biasingPhrases.isEmpty, options.biasingWeight > 0 else { return nil }
        let weight = Float(options.biasingWeight) * Self.biasingScale
        if let cached = biasingCache, cached.phrases == options.biasingPhrases, cached.biasing.weight == weight {
            return cached.biasing
        }
        let tokenizer = model.tokenizer
        let biasing = ContextualBiasing(phrases: options.biasingPhrases, weight: weight, firstSpecial: tokenizer.count,
                                        encode: phraseEncoder.encode,
                                        isSpaced: { $0 >= MoonshineTokenizer.firstPiece && tokenizer.startsWord($0) })
        biasingCache = (options.biasingPhrases, biasing)
        return biasing
    }

    /// For measuring which cross-attention heads align (`whisper-bench moonshine-heads`): the clip's greedy text and,
    /// for each group of (layer, head) pairs, the words an alignment on that group's mean gives (seconds from the
    /// clip's start).
    public func alignments(clip samples: [Float], headGroups: [[(layer: Int, head: Int)]]) throws -> (text: String, words: [[Word]]) {
        try WhisperSession.validate(samples)
        let all = (0..<model.weights.decoderLayers.count).flatMap { layer in
            (0..<MoonshineWeights.heads).map { (layer: layer, head: $0) }
        }
        let decoding = transcription.decode(samples: samples, beamSize: 1, attentionHeads: all)
        let text = model.tokenizer.decode(decoding.tokens)
        guard let record = decoding.attention, decoding.frames > 0 else { return (text, headGroups.map { _ in [] }) }
        let punctuation = TranscriptionOptions()
        let words = headGroups.map { group in
            MoonshineWordAlignment.words(
                tokens: decoding.tokens, probabilities: decoding.logProbabilities,
                headScores: MoonshineWordAlignment.headScores(
                    record, recorded: all.count, frames: decoding.frames,
                    selecting: group.map { $0.layer * MoonshineWeights.heads + $0.head }),
                frames: decoding.frames, tokenizer: model.tokenizer,
                prependPunctuations: punctuation.prependPunctuations, appendPunctuations: punctuation.appendPunctuations
            ).map { Word(start: $0.start, end: $0.end, word: $0.word, probability: $0.probability) }
        }
        return (text, words)
    }

    /// Words grouped into sentences: a word ending in `.`, `?` or `!` closes one.
    static func sentences(_ words: [WordTimestamps.Timing]) -> [[WordTimestamps.Timing]] {
        var sentences: [[WordTimestamps.Timing]] = []
        var current: [WordTimestamps.Timing] = []
        for word in words {
            current.append(word)
            if let last = word.word.trimmingCharacters(in: .whitespaces).last, ".?!".contains(last) {
                sentences.append(current)
                current = []
            }
        }
        if !current.isEmpty { sentences.append(current) }
        return sentences
    }
}

extension MoonshineModel: SpeechModel {
    public var isMultilingual: Bool { false }

    public func makeSession(maxBeams: Int?) -> any WindowDecoder & LongFormDecoder {
        MoonshineSession(model: self, maxBeams: maxBeams ?? MoonshineSession.greedy)
    }
}

extension MoonshineSession: WindowDecoder, LongFormDecoder {
    public var isMultilingual: Bool { false }

    /// Moonshine takes no prompt: no tokens.
    public func encode(_ text: String) -> [Int] { [] }

    /// Greedy: beam search costs Moonshine 1.7 times the time for no better words on the corpus (BENCHMARKS.md).
    public var defaultBeamSize: Int { Self.greedy }

    static let greedy = 1

    /// The window decoded as one clip (at most `MoonshineModel.longestClipSeconds`); `previousTokens` and
    /// `encodedPositions` are not used (a clip already costs its own length).
    public func decodeWindow(samples: [Float], previousTokens: [Int], timeOffset: Double, options: TranscriptionOptions,
                             encodedPositions: Int?) throws -> [Segment] {
        try segments(clip: samples, timeOffset: timeOffset, seek: Int((timeOffset * 100).rounded()), options: options,
                     wordTimes: options.wordTimestamps)
    }

    /// English: Moonshine base hears no other language.
    public func detectLanguage(samples: [Float], encodedPositions: Int?) throws -> [(language: String, probability: Double)] {
        try WhisperSession.validate(samples)
        return [("en", 1)]
    }

    public func longFormStream(options: TranscriptionOptions) -> any LongFormStream {
        MoonshineLongForm(session: self, options: options)
    }
}

/// A long recording through Moonshine as it arrives: clips cut at pauses (`ClipCuts.moonshine`), each decoded once
/// its audio is all there (a clip is chosen from the first `longest` samples waiting, or the rest at the end), so the
/// segments depend on the audio and the options alone.
final class MoonshineLongForm: LongFormStream {
    private let session: MoonshineSession
    private let options: TranscriptionOptions
    private let cuts = ClipCuts.moonshine
    /// Audio not yet decoded, from stream position `decodedThrough`.
    private var pending: [Float] = []
    private(set) var decodedThrough = 0
    private var ended = false
    private var segmentCount = 0
    var wordTimestampsWhere: ((Range<Int>) -> Bool)?
    var speechSamples: ((Range<Int>) -> Int)?
    var breaks: ((Range<Int>) -> Int?)?

    init(session: MoonshineSession, options: TranscriptionOptions) {
        self.session = session
        self.options = options
    }

    var language: String? { "en" }

    func append(_ samples: [Float]) throws {
        guard !ended else { throw EngineError.streamFinished }
        try WhisperSession.validate(samples)
        pending += samples
    }

    func finish(at position: Int) -> [Float] {
        let keep = min(max(0, position - decodedThrough), pending.count)
        let rest = Array(pending[keep...])
        pending.removeSubrange(keep...)
        ended = true
        return rest
    }

    func decodeAvailable() throws -> [Segment] {
        var segments: [Segment] = []
        while !pending.isEmpty {
            let start = decodedThrough
            // A clip ends at the first break within its longest length, once the audio after it has come: a clip
            // joining two stretches aligned the next stretch's first word into the pause before it. The clips still
            // depend on the audio alone (a break within `longest` is known before `longest` samples wait).
            let count: Int
            if let cut = breaks?(start..<(start + min(pending.count, cuts.longest + 1))) {
                count = cut - start
            } else if pending.count > cuts.longest || ended {
                count = pending.withUnsafeBufferPointer { audio in
                    cuts.nextClip(audio, speech: speechSamples.map { speech in
                        { range in speech((start + range.lowerBound)..<(start + range.upperBound)) }
                    })
                }
            } else {
                break
            }
            let range = start..<(start + count)
            let wordTimes = options.wordTimestamps || wordTimestampsWhere?(range) == true
            var clip = try session.segments(clip: Array(pending[..<count]), timeOffset: Double(start) / 16_000,
                                            seek: start / 160, options: options, wordTimes: wordTimes)
            for index in clip.indices {
                segmentCount += 1
                clip[index].id = segmentCount
            }
            segments += clip
            pending.removeFirst(count)
            decodedThrough += count
        }
        return segments
    }
}
