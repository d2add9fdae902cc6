import Foundation
import SpeechAssets
import SpeechAudio
import SpeechEngine

/// Runs a transcriber's audio through the Whisper engine and turns segments and words into results.
///
/// Final-only mode buffers audio and transcribes it long-form (as faster-whisper does) when finalized, or in
/// five-minute stretches as it grows, keeping the last 30 s for the next stretch; beside a `SpeechDetector` it
/// transcribes only the detector's speech, in segments of at most 30 s (`SpeechSegmentPlan`). Volatile mode
/// re-decodes the uncommitted tail every step and commits the words two consecutive decodings agree on
/// (LocalAgreement-2); committed audio leaves the window and committed text becomes the prompt.
actor TranscriptionProcessor: ModuleProcessor {
    struct Settings: Sendable {
        var locale: Locale
        var modelID: String?
        var volatile: Bool
        var stepSeconds: Double
        var beamSize: Int
        var wordTimes: Bool
        var timeRangeAttributes: Bool
        var confidence: Bool
        var etiquette: Bool
        /// Final-only results carry the beam's other hypotheses as alternatives.
        var alternatives: Bool = false
    }

    static let rate = 16_000.0
    /// Final-only mode transcribes once this much audio is buffered.
    static let offlineChunkSeconds = 300.0

    let settings: Settings
    private let output: @Sendable (SpeechTranscriber.Result) -> Void
    private let end: @Sendable ((any Error)?) -> Void

    private var model: WhisperModel?
    private var modelDirectory: URL?
    private var session: WhisperSession?
    private var retention = SpeechAnalyzer.Options.ModelRetention.whileInUse
    private var contextPrompt = ""
    private var finished = false
    /// Set when a `SpeechDetector` shares the analyzer: audio it calls silence gets no text.
    private var speechGate: SpeechGate?
    /// Samples final-only transcription has given the engine (with a detector, only its speech segments).
    private(set) var offlineSamplesTranscribed = 0

    /// Audio not yet finalized; `bufferStart` is the timeline sample of its first element.
    private var buffer: [Float] = []
    private var bufferStart: Int64 = 0
    /// Final text whose audio has left the buffer: the model's prompt for what follows.
    private var promptText = ""
    /// Results are final up to this timeline sample.
    private var finalizedThrough: Int64 = 0
    private var emittedText = false

    // Volatile mode.
    /// The last decoding's words after the committed ones.
    private var pending: [Word] = []
    /// Committed words whose audio is still in the window.
    private var windowWords: [Word] = []
    private var committedEnd: Double = 0
    private var decodedThrough: Int64 = 0
    private var showingVolatile = false

    init(settings: Settings, output: @escaping @Sendable (SpeechTranscriber.Result) -> Void,
         end: @escaping @Sendable ((any Error)?) -> Void) {
        self.settings = settings
        self.output = output
        self.end = end
    }

    /// The installed model folder for a locale (or an explicit model id), nil if not installed.
    static func modelDirectory(locale: Locale, modelID: String?) -> URL? {
        let store = ModelStore()
        guard let id = modelID ?? LocaleModelResolver(catalog: store.catalog).modelID(for: locale) else { return nil }
        return store.installedDirectory(for: id)
    }

    // MARK: ModuleProcessor

    func prepare(context: AnalysisContext, retention: SpeechAnalyzer.Options.ModelRetention) async throws {
        setContext(context)
        guard model == nil else { return }
        let store = ModelStore()
        let resolver = LocaleModelResolver(catalog: store.catalog)
        let name = settings.locale.identifier(.bcp47)
        guard let id = settings.modelID ?? resolver.modelID(for: settings.locale) else {
            throw SFSpeechError(.cannotAllocateUnsupportedLocale,
                                "No model transcribes \(name). Pick a locale from SpeechTranscriber.supportedLocales.")
        }
        guard let directory = store.installedDirectory(for: id) else {
            throw SFSpeechError(.noModel, "The model \(id) for \(name) is not installed. Install it with "
                + "AssetInventory.assetInstallationRequest(supporting:) or `openspeech models install \(id)`.")
        }
        self.retention = retention
        let loaded = try await ModelCache.shared.acquire(directory, retention: retention)
        model = loaded
        modelDirectory = directory
        session = WhisperSession(model: loaded, maxBeams: settings.beamSize)
    }

    /// Follows the speech regions of a `SpeechDetector` among the analyzer's modules (nil: there is none).
    func useSpeechGate(_ regions: SpeechRegionLog?) {
        guard speechGate?.regions !== regions else { return }
        speechGate = regions.map(SpeechGate.init)
    }

    /// The detector regions the gate reads, if a detector shares the analyzer.
    var gateRegions: SpeechRegionLog? { speechGate?.regions }

    func setContext(_ context: AnalysisContext) {
        contextPrompt = context.allContextualStrings.joined(separator: ", ")
    }

    func append(_ samples: [Float], at start: Int64) async throws {
        guard !finished else { return }
        let bufferEnd = bufferStart + Int64(buffer.count)
        if start > bufferEnd {
            // Skipped audio: what came before is complete.
            try finalizeBuffered(through: bufferEnd)
            buffer.removeAll(keepingCapacity: true)
            bufferStart = start
            decodedThrough = start
            committedEnd = max(committedEnd, Double(start) / Self.rate)
        }
        buffer.append(contentsOf: samples)
        if settings.volatile {
            if Double(bufferStart + Int64(buffer.count) - decodedThrough) >= settings.stepSeconds * Self.rate {
                try decodeVolatile()
            }
        } else if Double(buffer.count) >= Self.offlineChunkSeconds * Self.rate {
            try transcribeOffline(through: bufferStart + Int64(buffer.count), final: false)
        }
    }

    func finalize(through endSample: Int64?) async throws {
        guard !finished else { return }
        let bufferEnd = bufferStart + Int64(buffer.count)
        try finalizeBuffered(through: min(endSample ?? bufferEnd, bufferEnd))
    }

    func cancel(before start: Int64) async {
        let drop = Int(min(max(start - bufferStart, 0), Int64(buffer.count)))
        guard drop > 0 else { return }
        dropBuffered(drop)
        decodedThrough = max(decodedThrough, bufferStart)
        pending.removeAll { $0.start < Double(bufferStart) / Self.rate }
        finalizedThrough = max(finalizedThrough, bufferStart)
    }

    func finish(throwing error: (any Error)?) async {
        guard !finished else { return }
        finished = true
        buffer = []
        session = nil
        model = nil
        if let modelDirectory { await ModelCache.shared.release(modelDirectory) }
        end(error)
    }

    // MARK: Final-only transcription

    private func finalizeBuffered(through endSample: Int64) throws {
        guard endSample > bufferStart else { return }
        if settings.volatile {
            try commitVolatile(through: endSample)
        } else {
            try transcribeOffline(through: endSample, final: true)
        }
    }

    /// Transcribes buffered audio up to `endSample`. Unless `final`, only segments ending 30 s before it are
    /// emitted; the rest is transcribed again with more audio after it. With a detector, only its speech is
    /// transcribed (`transcribeSpeech`).
    private func transcribeOffline(through endSample: Int64, final: Bool) throws {
        if let speechGate { return try transcribeSpeech(through: endSample, final: final, gate: speechGate) }
        guard let session else { throw notPrepared() }
        let count = Int(endSample - bufferStart)
        let offset = Double(bufferStart) / Self.rate
        var options = engineOptions()
        options.initialPromptTokens = promptTokens(promptText)
        let segments = try session.transcribe(samples: Array(buffer[0..<count]), options: options)
        offlineSamplesTranscribed += count
        let keepUntil = final ? Double(count) / Self.rate : Double(count) / Self.rate - 30
        var consumed = final ? count : max(0, count - Int(30 * Self.rate))
        for segment in segments where final || segment.end <= keepUntil {
            consumed = max(consumed, min(count, Int((segment.end * Self.rate).rounded())))
            emitOffline(segment, offset: offset, audioEnd: offset + Double(count) / Self.rate)
        }
        dropBuffered(consumed)
        finalizedThrough = max(finalizedThrough, bufferStart)
    }

    /// Beside a detector: splits the buffered audio up to `endSample` into the speech segments of
    /// `SpeechSegmentPlan` and transcribes each on its own, its times shifted back onto the timeline, so silence
    /// costs nothing and no text can be invented in it. Unless `final`, the last segment waits for the audio after
    /// it (speech may go on).
    ///
    /// The segments are independent (one prompt for all, no state passed between them): they are what a batched
    /// engine would run through the encoder together.
    private func transcribeSpeech(through endSample: Int64, final: Bool, gate: SpeechGate) throws {
        guard let session else { throw notPrepared() }
        let count = Int(endSample - bufferStart)
        var options = engineOptions()
        options.initialPromptTokens = promptTokens(promptText)
        var segments = SpeechSegmentPlan.segments(speech: gate.speech(in: bufferStart..<endSample),
                                                  samples: buffer[0..<count], start: bufferStart)
        var consumed = count
        if !final {
            let waiting = segments.popLast()
            consumed = waiting.map { Int($0.lowerBound - bufferStart) } ?? max(0, count - Int(30 * Self.rate))
        }
        for segment in segments {
            let lower = Int(segment.lowerBound - bufferStart), upper = Int(segment.upperBound - bufferStart)
            // Short pauses inside a segment are muted, as the gate mutes all it calls silence.
            guard let samples = gate.gated(Array(buffer[lower..<upper]), from: segment.lowerBound) else { continue }
            offlineSamplesTranscribed += samples.count
            let offset = Double(segment.lowerBound) / Self.rate
            for piece in try session.transcribe(samples: samples, options: options) {
                guard let piece = gate.keep(piece, offset: offset) else { continue }
                emitOffline(piece, offset: offset, audioEnd: Double(segment.upperBound) / Self.rate)
            }
        }
        dropBuffered(consumed)
        finalizedThrough = max(finalizedThrough, bufferStart)
    }

    /// Moves the first `count` buffered samples out of the buffer, advancing `bufferStart` past them.
    private func dropBuffered(_ count: Int) {
        buffer.removeFirst(count)
        bufferStart += Int64(count)
    }

    /// Emits a segment the engine found in audio starting at `offset` seconds on the timeline as a final result.
    /// Whisper's timestamps can pass the end of the audio (windows are padded to 30 s): they are clamped to `audioEnd`.
    private func emitOffline(_ segment: Segment, offset: Double, audioEnd: Double) {
        let words = segment.words?.map { word in
            var shifted = word
            shifted.start = min(offset + word.start, audioEnd)
            shifted.end = min(offset + word.end, audioEnd)
            return shifted
        }
        emitFinal(words: words, text: segment.text, start: min(offset + segment.start, audioEnd),
                  end: min(offset + segment.end, audioEnd), confidence: exp(segment.avgLogProb),
                  alternatives: segment.alternatives)
    }

    // MARK: Volatile transcription (LocalAgreement-2)

    /// Decodes the window, commits the words that agree with the previous decoding, shows the rest.
    private func decodeVolatile() throws {
        let words = try decodeWindowWords()
        decodedThrough = bufferStart + Int64(buffer.count)
        var agreed = 0
        while agreed < min(words.count, pending.count), Self.sameWord(words[agreed], pending[agreed]) { agreed += 1 }
        if agreed > 0 { commit(Array(words[0..<agreed])) }
        pending = Array(words[agreed...])
        showVolatile()
        trimWindow()
    }

    /// Commits everything up to `endSample`, decoding the latest audio first, and drops that audio.
    private func commitVolatile(through endSample: Int64) throws {
        if decodedThrough < bufferStart + Int64(buffer.count) || pending.isEmpty {
            pending = try decodeWindowWords()
            decodedThrough = bufferStart + Int64(buffer.count)
        }
        let limit = Double(endSample) / Self.rate
        let ready = Array(pending.prefix { $0.end <= limit + 0.05 })
        pending.removeFirst(ready.count)
        commit(ready, through: limit)
        pending.removeAll { $0.start < committedEnd }
        showVolatile()
        trimWindow(force: true)
    }

    /// The words of the current window after the committed ones. The whole window is decoded with the text
    /// before it as prompt; words before the last commit, and a re-heard tail of it, are dropped.
    private func decodeWindowWords() throws -> [Word] {
        guard let session else { throw notPrepared() }
        // Whisper hears at most 30 s: a window that grew past it (no agreement that long) is committed.
        if buffer.count > Int(28 * Self.rate) {
            commit(pending)
            pending = []
            trimWindow(force: true)
            if buffer.count > Int(28 * Self.rate) { // nothing recognized: keep only the last seconds
                let drop = buffer.count - Int(5 * Self.rate)
                dropBuffered(drop)
            }
        }
        guard buffer.count >= Int(0.1 * Self.rate),
              let window = speechGate.map({ $0.gated(buffer, from: bufferStart) }) ?? buffer else { return [] }
        var options = engineOptions()
        options.wordTimestamps = true
        options.temperatures = [0]
        let segments = try session.decodeWindow(samples: window, previousTokens: promptTokens(promptText),
                                                timeOffset: Double(bufferStart) / Self.rate, options: options)
        let speech = segments.filter { !($0.noSpeechProb > 0.6 && $0.avgLogProb < -1) }
        var words = speech.flatMap { $0.words ?? [] }.filter { $0.start >= committedEnd - 0.1 }
        if let speechGate { words = speechGate.keep(words) }
        // A word straddling the last commit may be heard again: drop the longest run (≤ 5 words) at the start
        // that repeats the end of the committed words.
        if let first = words.first, first.start < committedEnd + 1 {
            let tail = windowWords.suffix(5).map { Self.normalized($0.word) }
            for length in stride(from: min(5, tail.count, words.count), through: 1, by: -1)
            where Array(tail.suffix(length)) == words.prefix(length).map({ Self.normalized($0.word) }) {
                words.removeFirst(length)
                break
            }
        }
        return words
    }

    /// Emits `words` as one final result covering the audio from the last commit to their end.
    private func commit(_ words: [Word], through limit: Double? = nil) {
        let start = max(committedEnd, Double(finalizedThrough) / Self.rate)
        if let last = words.last {
            let end = max(last.end, limit ?? 0, start)
            emitFinal(words: words, text: words.map(\.word).joined(), start: start, end: end,
                      confidence: words.map(\.probability).reduce(0, +) / Double(words.count))
            windowWords += words
            committedEnd = end
        } else if let limit {
            committedEnd = max(committedEnd, limit)
        }
        finalizedThrough = max(finalizedThrough, Int64((committedEnd * Self.rate).rounded()))
    }

    /// Moves committed audio out of the window once a sentence is complete, or the window passes 15 s, or
    /// when forced: its words then become prompt text.
    private func trimWindow(force: Bool = false) {
        guard committedEnd > Double(bufferStart) / Self.rate else { return }
        let sentenceEnded = windowWords.last.map { [".", "?", "!"].contains($0.word.last) } ?? false
        guard force || sentenceEnded || Double(buffer.count) / Self.rate > 15 else { return }
        let drop = min(buffer.count, max(0, Int((committedEnd * Self.rate).rounded()) - Int(bufferStart)))
        dropBuffered(drop)
        decodedThrough = max(decodedThrough, bufferStart)
        promptText = (promptText + windowWords.map(\.word).joined()).suffix(2_000).description
        windowWords = []
    }

    private func showVolatile() {
        guard !pending.isEmpty || showingVolatile else { return }
        let start = CMTime(value: Int64((committedEnd * Self.rate).rounded()), timescale: Int32(Self.rate))
        let bufferEnd = CMTime(value: bufferStart + Int64(buffer.count), timescale: Int32(Self.rate))
        let text = pending.isEmpty ? AttributedString() : attributed(words: pending, text: nil, start: committedEnd,
                                                                       end: pending.last!.end, confidence: nil)
        output(SpeechTranscriber.Result(range: CMTimeRange(start: start, end: max(bufferEnd, start)),
                                        resultsFinalizationTime: start, alternatives: [text]))
        showingVolatile = !pending.isEmpty
    }

    // MARK: Results

    /// `alternatives`: the engine's texts for the segment, its own first (`Segment.alternatives`).
    private func emitFinal(words: [Word]?, text: String, start: Double, end: Double, confidence: Double,
                           alternatives: [String]? = nil) {
        let (words, text) = RepetitionGuard.cut(words: words, text: text)
        guard !text.trimmingCharacters(in: .whitespaces).isEmpty else { return }
        let string = attributed(words: words, text: text, start: start, end: end, confidence: confidence)
        let range = CMTimeRange(start: Self.time(start), end: Self.time(max(end, start)))
        let others = settings.alternatives ? otherAlternatives(alternatives, start: start, end: end) : []
        output(SpeechTranscriber.Result(range: range, resultsFinalizationTime: range.end,
                                        alternatives: ([string] + others).distinctTexts()))
        if !settings.volatile { promptText = (promptText + text).suffix(2_000).description }
        emittedText = true
        showingVolatile = false
    }

    /// The engine's texts after the first, cleaned as the best one is, without repetition loops or blanks: plain
    /// text, with the result's time range over all of it when asked (the words' times are the best one's only).
    private func otherAlternatives(_ texts: [String]?, start: Double, end: Double) -> [AttributedString] {
        (texts ?? []).dropFirst().compactMap { text in
            let text = RepetitionGuard.cut(words: nil, text: text).text
            guard !text.trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
            return attributed(words: nil, text: text, start: start, end: end, confidence: nil)
        }
    }

    /// Text with word runs carrying `audioTimeRange` and `transcriptionConfidence` as the options ask.
    private func attributed(words: [Word]?, text: String?, start: Double, end: Double, confidence: Double?) -> AttributedString {
        var result = AttributedString()
        if let words, !words.isEmpty, settings.timeRangeAttributes || settings.confidence {
            for (index, word) in words.enumerated() {
                var piece = AttributedString(clean(word.word, first: index == 0))
                if settings.timeRangeAttributes {
                    piece.audioTimeRange = CMTimeRange(start: Self.time(word.start), end: Self.time(max(word.end, word.start)))
                }
                if settings.confidence { piece.transcriptionConfidence = min(max(word.probability, 0), 1) }
                result += piece
            }
            return result
        }
        var piece = AttributedString(clean(text ?? (words ?? []).map(\.word).joined(), first: true))
        if settings.timeRangeAttributes {
            piece.audioTimeRange = CMTimeRange(start: Self.time(start), end: Self.time(max(end, start)))
        }
        if settings.confidence, let confidence { piece.transcriptionConfidence = min(max(confidence, 0), 1) }
        return piece
    }

    /// The session's first text loses Whisper's leading space; profanity is masked if asked.
    private func clean(_ text: String, first: Bool) -> String {
        var text = text
        if first && !emittedText { text = String(text.drop { $0 == " " }) }
        return settings.etiquette ? EtiquetteFilter.mask(text) : text
    }

    // MARK: Engine settings

    private func engineOptions() -> TranscriptionOptions {
        var options = TranscriptionOptions()
        options.beamSize = settings.beamSize
        options.bestOf = settings.beamSize
        options.wordTimestamps = settings.wordTimes
        // Volatile mode commits agreed words, not the beam's segments: it has no alternatives to keep.
        options.alternatives = settings.alternatives && !settings.volatile
        if let model, model.tokenizer.isMultilingual {
            options.language = LocaleModelResolver.whisperLanguage(of: settings.locale)
        }
        return options
    }

    /// The context's words, then the tail of `text`, as prompt tokens.
    private func promptTokens(_ text: String) -> [Int] {
        guard let model else { return [] }
        var prompt = text
        if !contextPrompt.isEmpty { prompt = " " + contextPrompt + "." + prompt }
        guard !prompt.isEmpty else { return [] }
        return Array(model.tokenizer.encode(prompt).suffix(223))
    }

    private func notPrepared() -> SFSpeechError {
        SFSpeechError(.noModel, "The transcriber's model is not loaded; the analyzer prepares it before analysis.")
    }

    static func time(_ seconds: Double) -> CMTime { CMTime(seconds: max(seconds, 0), preferredTimescale: Int32(rate)) }

    static func normalized(_ word: String) -> String {
        word.lowercased().filter { $0.isLetter || $0.isNumber }
    }

    static func sameWord(_ a: Word, _ b: Word) -> Bool { normalized(a.word) == normalized(b.word) }
}
