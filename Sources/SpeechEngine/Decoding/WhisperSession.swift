import Foundation

/// Transcription with one model: owns the encoder/decoder scratch memory, so repeated calls do not
/// allocate. Not for concurrent use; create one per task.
public final class WhisperSession {
    public let model: WhisperModel
    let encoder: AudioEncoder
    let decoder: TextDecoder
    private let melBuffer = Buffer()
    private var biasingCache: (phrases: [String], biasing: ContextualBiasing)?
    let melTables: LogMelSpectrogram.Tables
    static let framesPerSecond = 100.0, timePrecision = 0.02, inputStride = 2

    public init(model: WhisperModel, maxBeams: Int = 5) {
        self.model = model
        let parallel = Parallel(threads: model.threads)
        encoder = AudioEncoder(weights: model.weights, parallel: parallel)
        decoder = TextDecoder(weights: model.weights, maxBeams: max(1, maxBeams), parallel: parallel)
        melTables = LogMelSpectrogram.Tables(melBins: model.dimensions.melBins)
    }

    // MARK: Long-form transcription

    /// Transcribes 16 kHz mono samples of any length through consecutive 30 s windows, as faster-whisper.
    public func transcribe(samples: [Float], options: TranscriptionOptions = .init()) throws -> [Segment] {
        try Self.validate(samples)
        let mel = LogMelSpectrogram(samples: samples, tables: melTables)
        guard mel.contentFrames > 0 else { return [] }
        var state = try startLongForm(mel, options: options)
        var segments: [Segment] = []
        while state.seek < mel.contentFrames {
            segments += decodeLongFormWindow(mel, frames: min(LogMelSpectrogram.windowFrames, mel.contentFrames - state.seek),
                                             state: &state, options: options)
        }
        return segments
    }

    /// Where a long-form transcription stands between two windows: faster-whisper's seek loop, one window at a time.
    struct LongFormState {
        /// The language of the window being decoded (nil before the first when the options name none: it is
        /// detected on the first window's encoding, and on each window's with `detectsLanguagePerWindow`).
        var language: String?
        var sotSequence: [Int]
        let decoding: WindowDecoding
        /// Frame (10 ms) where the next window starts.
        var seek = 0
        var allTokens: [Int]
        var promptResetSince = 0
        var lastSpeechTimestamp = 0.0
        var generator: SeededGenerator
        var segmentCount = 0
        /// Windows encoded ahead of the decoder (`EncoderBatchPlan`), in order, with their encoder outputs.
        var encodedAhead: [(window: EncoderBatchPlan.Window, encoding: [Float])] = []
    }

    /// The state before the first window of `mel`. When the options name no language, it is detected on the first
    /// window's encoding (the one the window is then decoded with: the window is encoded once).
    func startLongForm(_ mel: LogMelSpectrogram, options: TranscriptionOptions) throws -> LongFormState {
        let language: String? = try options.language.map { try resolveLanguage($0, mel: mel) }
            ?? (model.tokenizer.isMultilingual ? nil : "en")
        return LongFormState(language: language, sotSequence: language.map { sotSequence($0, options) } ?? [],
                             decoding: makeDecoding(options), allTokens: initialPromptTokens(options),
                             generator: SeededGenerator(seed: options.seed))
    }

    func sotSequence(_ language: String, _ options: TranscriptionOptions) -> [Int] {
        model.tokenizer.sotSequence(language: language, task: options.task == .translate ? .translate : .transcribe)
    }

    // MARK: Incremental decoding (streaming)

    /// Decodes one window of at most 30 s (e.g. the growing, not yet committed tail of a stream) after
    /// `previousTokens` (committed text), with times shifted by `timeOffset` seconds. Returns the window's
    /// segments, including a trailing unfinished one; cheap to call again as the window grows.
    /// `encodedPositions` (encoder positions of 20 ms) shortens the encoding to the window's first
    /// `encodedPositions · 20 ms` (whisper.cpp's `audio_ctx`): a fraction of the encoder's work for a short window,
    /// at some cost in accuracy; nil encodes the whole 30 s, padding included, as file transcription does.
    public func decodeWindow(samples: [Float], previousTokens: [Int], timeOffset: Double,
                             options: TranscriptionOptions = .init(), encodedPositions: Int? = nil) throws -> [Segment] {
        try Self.validate(samples)
        let seconds = Double(samples.count) / 16000
        guard seconds <= 30.0001 else { throw EngineError.windowTooLong(seconds: seconds) }
        let mel = LogMelSpectrogram(samples: samples, tables: melTables)
        let frames = min(mel.contentFrames, LogMelSpectrogram.windowFrames)
        guard frames > 0 else { return [] }
        let language = try resolveLanguage(options.language, mel: mel)
        let sotSequence = model.tokenizer.sotSequence(language: language, task: options.task == .translate ? .translate : .transcribe)
        if let encodedPositions {
            encodeWindow(mel, start: 0, count: frames, positions: encodedPositions)
        } else {
            encodeWindow(mel, start: 0, count: frames)
        }
        var generator = SeededGenerator(seed: options.seed)
        let prompt = makePrompt(previous: previousTokens, sotSequence: sotSequence, options: options)
        let attempt = decodeWithFallback(makeDecoding(options), prompt: prompt, options: options, generator: &generator)
        let split = {
            self.splitByTimestamps($0, timeOffset: 0, segmentSize: frames,
                                   segmentDuration: Double(frames) / Self.framesPerSecond, seek: 0,
                                   keepUnfinished: true).segments
        }
        var pieces = split(attempt.result.tokens)
        if options.alternatives { addAlternatives(to: &pieces, from: attempt.result, split: split) }
        if options.wordTimestamps {
            addWordTimestamps(&pieces, sotSequence: sotSequence, language: language, options: options,
                              numFrames: frames, seek: 0, lastSpeechTimestamp: 0)
        }
        return pieces.enumerated().compactMap { index, piece in
            let text = model.tokenizer.decode(piece.tokens)
            if text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { return nil }
            return Segment(id: index + 1, seek: 0, start: piece.start + timeOffset, end: piece.end + timeOffset,
                           text: text, tokens: piece.tokens, avgLogProb: attempt.averageLogProb,
                           compressionRatio: attempt.compressionRatio, noSpeechProb: attempt.result.noSpeechProb,
                           temperature: attempt.temperature,
                           words: piece.words?.map { Word(start: $0.start + timeOffset, end: $0.end + timeOffset,
                                                          word: $0.word, probability: $0.probability) },
                           alternatives: piece.alternatives)
        }
    }

    // MARK: Language

    /// Language probabilities on the first window, most likely first. `encodedPositions` (encoder positions of
    /// 20 ms) shortens the encoding to the window's first `encodedPositions · 20 ms` (whisper.cpp's `audio_ctx`):
    /// nil encodes the whole 30 s, padding included, as faster-whisper does.
    public func detectLanguage(samples: [Float], encodedPositions: Int? = nil)
        throws -> [(language: String, probability: Double)] {
        try Self.validate(samples)
        let mel = LogMelSpectrogram(samples: samples, tables: melTables)
        return detectLanguage(mel, encodedPositions: encodedPositions)
    }

    private func detectLanguage(_ mel: LogMelSpectrogram, encodedPositions: Int? = nil)
        -> [(language: String, probability: Double)] {
        let tokenizer = model.tokenizer
        guard tokenizer.isMultilingual else { return [("en", 1)] }
        let count = min(mel.contentFrames, LogMelSpectrogram.windowFrames)
        if let encodedPositions {
            encodeWindow(mel, start: 0, count: count, positions: encodedPositions)
        } else {
            encodeWindow(mel, start: 0, count: count)
        }
        return languageProbabilities()
    }

    /// Language probabilities of the window last encoded, most likely first (one decoder step on the start token).
    func languageProbabilities() -> [(language: String, probability: Double)] {
        let tokenizer = model.tokenizer
        guard tokenizer.isMultilingual else { return [("en", 1)] }
        let logits = decoder.forward(tokens: [tokenizer.sot], start: 0, outputRows: [0])
        let ids = model.config.languageIDs
        let values = ids.map { logits[$0] }
        let m = values.max() ?? 0
        let exps = values.map { libmExp(Double($0 - m)) }
        let total = exps.reduce(0, +)
        return zip(ids, exps).compactMap { id, e in
            tokenizer.languageCode(for: id).map { ($0, e / total) }
        }.sorted { $0.1 > $1.1 }
    }

    private func resolveLanguage(_ requested: String?, mel: LogMelSpectrogram) throws -> String {
        let tokenizer = model.tokenizer
        if let requested {
            guard tokenizer.isMultilingual else { return "en" }
            guard tokenizer.languageToken(for: requested) != nil else { throw EngineError.unsupportedLanguage(requested) }
            return requested
        }
        guard tokenizer.isMultilingual else { return "en" }
        return detectLanguage(mel).first?.language ?? "en"
    }

    // MARK: Steps

    static func validate(_ samples: [Float]) throws {
        try samples.withUnsafeBufferPointer { x in
            var i = 0
            let n = x.count
            while i + 16 <= n {
                let v = Vector.load(x.baseAddress! + i)
                // NaN and ±inf are exactly the values whose product with 0 is not 0.
                if any((v * 0) .!= 0) { break }
                i += 16
            }
            while i < n {
                if !x[i].isFinite { throw EngineError.invalidSample(index: i) }
                i += 1
            }
        }
    }

    /// Sets the decoder's memory to the encoding of the window of `count` frames at `state.seek`: one encoded ahead
    /// if the seek landed on it, else that window encoded now, with the full windows after it (`EncoderBatchPlan`)
    /// kept for later. Every window's encoding is the same as when encoded alone.
    func encodeLongFormWindow(_ mel: LogMelSpectrogram, count: Int, state: inout LongFormState, batchSize: Int) {
        let plan = EncoderBatchPlan(batchSize: batchSize)
        if let index = plan.reusable(state.encodedAhead.map(\.window), seek: state.seek, count: count) {
            let encoding = state.encodedAhead[index].encoding
            state.encodedAhead.removeFirst(index + 1)
            EngineLog.debug("encoder batch: window at frame \(state.seek) was encoded ahead")
            encoding.withUnsafeBufferPointer { p in
                StageTimes.measure(.crossKeysValues) { decoder.setMemory(p.baseAddress!) }
            }
            return
        }
        if !state.encodedAhead.isEmpty {
            EngineLog.debug("encoder batch: \(state.encodedAhead.count) window(s) encoded ahead unused (seek \(state.seek))")
        }
        state.encodedAhead.removeAll()
        let windows = plan.windows(seek: state.seek, count: count, completeFrames: mel.completeFrames,
                                   contentFrames: mel.contentFrames, ended: mel.ended)
        guard windows.count > 1 else {
            encodeWindow(mel, start: state.seek, count: count)
            return
        }
        let melSize = LogMelSpectrogram.windowFrames * model.dimensions.melBins
        let features = melBuffer.reserve(windows.count * melSize)
        // The decoder's window first: its log-mel floor moves the running maximum as without batching.
        for (i, window) in windows.enumerated() {
            mel.window(start: window.start, count: window.count, into: features + i * melSize, ahead: i > 0)
        }
        let inputs = windows.indices.map { UnsafePointer(features + $0 * melSize) }
        let encoded = StageTimes.measure(.encoder) { encoder.encode(batch: inputs) }
        EngineLog.debug("encoder batch: \(windows.count) windows from frame \(state.seek)")
        let rows = model.dimensions.audioContext * model.dimensions.modelWidth
        for i in windows.indices.dropFirst() {
            state.encodedAhead.append((windows[i], Array(UnsafeBufferPointer(start: encoded + i * rows, count: rows))))
        }
        StageTimes.measure(.crossKeysValues) { decoder.setMemory(encoded) }
    }

    private func encodeWindow(_ mel: LogMelSpectrogram, start: Int, count: Int) {
        let features = melBuffer.reserve(LogMelSpectrogram.windowFrames * model.dimensions.melBins)
        mel.window(start: start, count: count, into: features)
        let encoded = StageTimes.measure(.encoder) { encoder.encode(features) }
        StageTimes.measure(.crossKeysValues) { decoder.setMemory(encoded) }
    }

    /// Encodes only the first `positions` encoder positions (`2 · positions` mel frames) of the window.
    private func encodeWindow(_ mel: LogMelSpectrogram, start: Int, count: Int, positions: Int) {
        let positions = max(1, min(positions, model.dimensions.audioContext))
        let features = melBuffer.reserve(LogMelSpectrogram.windowFrames * model.dimensions.melBins)
        mel.window(start: start, count: count, into: features)
        let encoded = StageTimes.measure(.encoder) { encoder.encode(features, positions: positions) }
        StageTimes.measure(.crossKeysValues) { decoder.setMemory(encoded, frames: positions) }
    }

    private func makeDecoding(_ options: TranscriptionOptions) -> WindowDecoding {
        let tokenizer = model.tokenizer
        var suppressed: [Int] = []
        if options.suppressTokens.contains(-1) {
            suppressed = options.suppressTokens.filter { $0 >= 0 } + tokenizer.nonSpeechTokens
        } else {
            suppressed = options.suppressTokens
        }
        suppressed += [tokenizer.transcribe, tokenizer.translate, tokenizer.sot, tokenizer.startOfPrev,
                       tokenizer.startOfLM, tokenizer.noSpeech]
        let vocabulary = model.dimensions.vocabularySize
        suppressed = Array(Set(suppressed.filter { $0 >= 0 && $0 < vocabulary })).sorted()
        let maxInitial = Int((options.maxInitialTimestamp / Self.timePrecision).rounded(.toNearestOrEven))
        var processors = LogitsProcessorChain()
        processors.masks.append(SuppressTokens(ids: suppressed))
        if options.suppressBlank {
            processors.masks.append(SuppressAtBegin(ids: model.config.suppressIDsBegin.filter { $0 < vocabulary }))
        }
        if !options.withoutTimestamps {
            processors.masks.append(TimestampRules(eot: tokenizer.eot, noTimestamps: tokenizer.noTimestamps,
                                                   timestampBegin: tokenizer.timestampBegin,
                                                   maxInitialTimestamp: tokenizer.timestampBegin + maxInitial))
        }
        if !options.biasingPhrases.isEmpty && options.biasingWeight > 0 {
            let biasing = contextualBiasing(phrases: options.biasingPhrases, weight: Float(options.biasingWeight))
            if !biasing.trie.isEmpty {
                processors.adjustments.append(biasing)
                processors.biasing = biasing
            }
        }
        return WindowDecoding(decoder: decoder, tokenizer: tokenizer, processors: processors,
                              textContext: model.dimensions.textContext)
    }

    /// The biasing for `phrases` with this model's tokenizer (the last one built is kept: streaming decodes the
    /// same phrases again and again).
    func contextualBiasing(phrases: [String], weight: Float) -> ContextualBiasing {
        if let cached = biasingCache, cached.phrases == phrases, cached.biasing.weight == weight { return cached.biasing }
        let tokenizer = model.tokenizer
        let biasing = ContextualBiasing(phrases: phrases, weight: weight, firstSpecial: tokenizer.eot,
                                        encode: tokenizer.encode,
                                        isSpaced: { tokenizer.decode([$0]).first == " " })
        biasingCache = (phrases, biasing)
        return biasing
    }

    private func initialPromptTokens(_ options: TranscriptionOptions) -> [Int] {
        if let tokens = options.initialPromptTokens { return tokens }
        if let text = options.initialPrompt {
            let tail = PromptText.usableTail(text.trimmingCharacters(in: .whitespacesAndNewlines))
            return model.tokenizer.encode(" " + tail.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        return []
    }

    func makePrompt(previous: [Int], sotSequence: [Int], options: TranscriptionOptions) -> [Int] {
        var prompt: [Int] = []
        let half = model.dimensions.textContext / 2
        if !previous.isEmpty {
            prompt.append(model.tokenizer.startOfPrev)
            prompt.append(contentsOf: previous.suffix(half - 1))
        }
        prompt.append(contentsOf: sotSequence)
        if options.withoutTimestamps { prompt.append(model.tokenizer.noTimestamps) }
        return prompt
    }

    /// Whether a window's decoding found no speech: its no-speech probability above the threshold and its text
    /// improbable (faster-whisper's rule for leaving a window out).
    func isSilent(_ result: WindowResult, options: TranscriptionOptions) -> Bool {
        guard let threshold = options.noSpeechThreshold, result.noSpeechProb > threshold else { return false }
        return options.logProbThreshold.map { result.averageLogProb <= $0 } ?? true
    }

    /// The temperature fallback's temperatures (0 alone when the options name none).
    private static func temperatures(_ options: TranscriptionOptions) -> [Double] {
        options.temperatures.isEmpty ? [0] : options.temperatures
    }

    /// Whether `attempt` took the temperature fallback (was not decoded at the first temperature).
    func tookFallback(_ attempt: Attempt, options: TranscriptionOptions) -> Bool {
        attempt.temperature != Self.temperatures(options)[0]
    }

    struct Attempt {
        var result: WindowResult
        var averageLogProb: Double
        var temperature: Double
        var compressionRatio: Double
    }

    /// Decodes at each temperature in turn until the output is neither too repetitive nor too improbable.
    func decodeWithFallback(_ decoding: WindowDecoding, prompt: [Int], options: TranscriptionOptions,
                                    generator: inout SeededGenerator) -> Attempt {
        var all: [Attempt] = [], belowThreshold: [Attempt] = []
        let temperatures = Self.temperatures(options)
        for temperature in temperatures {
            let result = StageTimes.measureDecoding {
                decoding.decode(prompt: prompt, temperature: temperature, beamSize: options.beamSize,
                                bestOf: options.bestOf, patience: options.patience,
                                lengthPenalty: options.lengthPenalty, maxNewTokens: options.maxNewTokens,
                                keepHypotheses: options.alternatives, generator: &generator)
            }
            // The model copied its prompt (`PromptCopy`, checked at the first temperature): decoded again without the
            // prompt's text, taken when that needs no fallback. Not for a window without speech, which the caller
            // leaves out anyway (a prompt copied over silence, where a decoding without it invents other text).
            if temperature == Self.temperatures(options)[0], let sot = prompt.firstIndex(of: model.tokenizer.sot), sot > 0,
               !isSilent(result, options: options),
               PromptCopy(minimumLength: options.promptCopyLength).isFound(in: result.tokens, prompt: prompt[..<sot],
                                                                          textEnd: model.tokenizer.eot) {
                let retry = decodeWithFallback(decoding, prompt: Array(prompt[sot...]), options: options,
                                               generator: &generator)
                let taken = !tookFallback(retry, options: options)
                EngineLog.debug("a window's text says its prompt's words twice; decoded again without the prompt's text: \(taken ? "taken" : "needs fallback, not taken")")
                if taken { return retry }
            }
            let text = model.tokenizer.decode(result.tokens).trimmingCharacters(in: .whitespacesAndNewlines)
            let attempt = Attempt(result: result, averageLogProb: result.averageLogProb, temperature: temperature,
                                  compressionRatio: CompressionRatio.of(text))
            all.append(attempt)
            var needsFallback = false
            let compresses = options.compressionRatioThreshold.map { attempt.compressionRatio > $0 } ?? false
            let loops = options.repetitionLoopLength.map {
                RepetitionLoop(minimumLength: $0).isFound(in: result.tokens, textEnd: model.tokenizer.eot)
            } ?? false
            if compresses || loops { needsFallback = true } else { belowThreshold.append(attempt) }
            if let lp = options.logProbThreshold, attempt.averageLogProb < lp { needsFallback = true }
            if let ns = options.noSpeechThreshold, let lp = options.logProbThreshold,
               result.noSpeechProb > ns, attempt.averageLogProb < lp { needsFallback = false }
            if !needsFallback { return attempt }
        }
        var best = (belowThreshold.isEmpty ? all : belowThreshold).max { $0.averageLogProb < $1.averageLogProb }!
        best.temperature = temperatures.last!
        return best
    }

    struct Piece {
        var start: Double, end: Double
        var tokens: [Int]
        var words: [Word]?
        /// Texts of this stretch in the window's hypotheses, when asked for (`addAlternatives`).
        var alternatives: [String]?
    }

    /// Splits a window's tokens at pairs of timestamps (faster-whisper's `_split_segments_by_timestamps`).
    func splitByTimestamps(_ tokens: [Int], timeOffset: Double, segmentSize: Int, segmentDuration: Double,
                                   seek: Int, keepUnfinished: Bool = false)
        -> (segments: [Piece], seek: Int, singleTimestampEnding: Bool) {
        let begin = model.tokenizer.timestampBegin
        var pieces: [Piece] = []
        var seek = seek
        let singleTimestampEnding = tokens.count >= 2 && tokens[tokens.count - 2] < begin && tokens.last! >= begin
        var consecutive: [Int] = []
        for i in tokens.indices where i > 0 && tokens[i] >= begin && tokens[i - 1] >= begin { consecutive.append(i) }
        if !consecutive.isEmpty {
            var slices = consecutive
            if singleTimestampEnding { slices.append(tokens.count) }
            var last = 0
            for current in slices {
                let sliced = Array(tokens[last..<current])
                pieces.append(Piece(start: timeOffset + Double(sliced.first! - begin) * Self.timePrecision,
                                    end: timeOffset + Double(sliced.last! - begin) * Self.timePrecision,
                                    tokens: sliced))
                last = current
            }
            if singleTimestampEnding {
                seek += segmentSize
            } else {
                seek += (tokens[last - 1] - begin) * Self.inputStride
                if keepUnfinished && last < tokens.count {
                    let rest = Array(tokens[last...])
                    let times = rest.filter { $0 >= begin }
                    pieces.append(Piece(start: timeOffset + Double(rest.first! >= begin ? rest.first! - begin : tokens[last - 1] - begin) * Self.timePrecision,
                                        end: timeOffset + (times.last.map { Double($0 - begin) * Self.timePrecision } ?? segmentDuration),
                                        tokens: rest))
                }
            }
        } else {
            var duration = segmentDuration
            let times = tokens.filter { $0 >= begin }
            if let lastTime = times.last, lastTime != begin { duration = Double(lastTime - begin) * Self.timePrecision }
            pieces.append(Piece(start: timeOffset, end: timeOffset + duration, tokens: tokens))
            seek += segmentSize
        }
        return (pieces, seek, singleTimestampEnding)
    }

    /// faster-whisper's `get_end`: the end of the last word, else of the last segment.
    static func lastEnd(_ pieces: [Piece]) -> Double? {
        for piece in pieces.reversed() { if let word = piece.words?.last { return word.end } }
        return pieces.last?.end
    }

    func addWordTimestamps(_ pieces: inout [Piece], sotSequence: [Int], language: String,
                                   options: TranscriptionOptions, numFrames: Int, seek: Int,
                                   lastSpeechTimestamp: Double) {
        _ = WordTimestamps.add(to: &pieces, decoder: decoder, tokenizer: model.tokenizer, sotSequence: sotSequence,
                               language: language, numFrames: numFrames, seek: seek,
                               alignmentHeads: model.config.alignmentHeads, prepend: options.prependPunctuations,
                               append: options.appendPunctuations, lastSpeechTimestamp: lastSpeechTimestamp)
    }
}
