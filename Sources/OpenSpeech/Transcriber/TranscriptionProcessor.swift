import Foundation
import SpeechAssets
import SpeechAudio
import SpeechEngine

/// Runs a transcriber's audio through the Whisper engine and turns segments and words into results.
///
/// Final-only mode buffers audio and transcribes it long-form (as faster-whisper does) when finalized, or in
/// five-minute stretches as it grows, keeping the last 30 s for the next stretch. Volatile mode re-decodes the
/// uncommitted tail every step and commits the words two consecutive decodings agree on (LocalAgreement-2);
/// committed text becomes the prompt, and the window is trimmed at committed sentence ends.
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

    /// Audio not yet finalized; `bufferStart` is the timeline sample of its first element.
    private var buffer: [Float] = []
    private var bufferStart: Int64 = 0
    /// Text already final, the model's prompt for what follows.
    private var committedText = ""
    /// Results are final up to this timeline sample.
    private var finalizedThrough: Int64 = 0
    private var emittedText = false

    // Volatile mode.
    private var pending: [Word] = []
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
        buffer.removeFirst(drop)
        bufferStart += Int64(drop)
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
    /// emitted; the rest is transcribed again with more audio after it.
    private func transcribeOffline(through endSample: Int64, final: Bool) throws {
        guard let session else { throw notPrepared() }
        let count = Int(endSample - bufferStart)
        let offset = Double(bufferStart) / Self.rate
        var options = engineOptions()
        options.initialPromptTokens = promptTokens()
        let segments = try session.transcribe(samples: Array(buffer[0..<count]), options: options)
        let keepUntil = final ? Double(count) / Self.rate : Double(count) / Self.rate - 30
        var consumed = final ? count : 0
        for segment in segments where final || segment.end <= keepUntil {
            emitFinal(words: segment.words, text: segment.text, start: offset + segment.start, end: offset + segment.end,
                      confidence: exp(segment.avgLogProb))
            consumed = max(consumed, min(count, Int((segment.end * Self.rate).rounded())))
        }
        buffer.removeFirst(consumed)
        bufferStart += Int64(consumed)
        finalizedThrough = max(finalizedThrough, bufferStart)
    }

    // MARK: Volatile transcription (LocalAgreement-2)

    /// Decodes the uncommitted window, commits what agrees with the previous decoding, shows the rest.
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

    /// Commits everything up to `endSample`, decoding the latest audio first.
    private func commitVolatile(through endSample: Int64) throws {
        if decodedThrough < bufferStart + Int64(buffer.count) || pending.isEmpty {
            pending = try decodeWindowWords()
            decodedThrough = bufferStart + Int64(buffer.count)
        }
        let limit = Double(endSample) / Self.rate
        let ready = pending.filter { $0.end <= limit + 0.05 }
        pending.removeFirst(ready.count)
        commit(ready, through: limit)
        if pending.isEmpty || endSample >= bufferStart + Int64(buffer.count) {
            pending = []
        }
        showVolatile()
        let drop = Int(min(Int64(buffer.count), max(0, endSample - bufferStart)))
        buffer.removeFirst(drop)
        bufferStart += Int64(drop)
        decodedThrough = max(decodedThrough, bufferStart)
        committedEnd = max(committedEnd, limit)
        finalizedThrough = max(finalizedThrough, endSample)
    }

    /// The words of the current window that come after the committed text.
    private func decodeWindowWords() throws -> [Word] {
        guard let session else { throw notPrepared() }
        // Whisper sees at most 30 s: a window that grew past it (no agreement for that long) is committed.
        let maxSamples = Int(30 * Self.rate)
        if buffer.count > maxSamples {
            commit(pending)
            pending = []
            let drop = buffer.count - maxSamples
            buffer.removeFirst(drop)
            bufferStart += Int64(drop)
        }
        guard buffer.count >= Int(0.1 * Self.rate) else { return [] }
        var options = engineOptions()
        options.wordTimestamps = true
        options.temperatures = [0]
        let segments = try session.decodeWindow(samples: buffer, previousTokens: promptTokens(),
                                                timeOffset: Double(bufferStart) / Self.rate, options: options)
        let speech = segments.filter { !($0.noSpeechProb > 0.6 && $0.avgLogProb < -1) }
        var words = speech.flatMap { $0.words ?? [] }.filter { $0.end > committedEnd + 0.02 }
        // Drop a re-heard tail of the committed text (up to five words) at the window's start.
        let committedWords = committedText.split(separator: " ").suffix(5).map { Self.normalized(String($0)) }
        for length in stride(from: min(5, committedWords.count, words.count), through: 1, by: -1) {
            let head = words.prefix(length).map { Self.normalized($0.word) }
            if Array(committedWords.suffix(length)) == head {
                words.removeFirst(length)
                break
            }
        }
        return words
    }

    private func commit(_ words: [Word], through limit: Double? = nil) {
        guard let last = words.last else {
            if let limit { committedEnd = max(committedEnd, limit) }
            return
        }
        let start = max(committedEnd, Double(finalizedThrough) / Self.rate)
        let end = max(last.end, limit ?? 0)
        emitFinal(words: words, text: words.map(\.word).joined(), start: min(start, words[0].start), end: end,
                  confidence: words.map(\.probability).reduce(0, +) / Double(words.count))
        committedEnd = end
        finalizedThrough = max(finalizedThrough, Int64((end * Self.rate).rounded()))
    }

    /// Drops committed audio from the window at a sentence end, or anywhere once it passes 20 s.
    private func trimWindow() {
        let committedInWindow = committedEnd - Double(bufferStart) / Self.rate
        guard committedInWindow > 0 else { return }
        let sentenceEnded = committedText.hasSuffix(".") || committedText.hasSuffix("?") || committedText.hasSuffix("!")
        guard sentenceEnded || Double(buffer.count) / Self.rate > 20 else { return }
        let drop = min(buffer.count, Int(committedInWindow * Self.rate))
        buffer.removeFirst(drop)
        bufferStart += Int64(drop)
        decodedThrough = max(decodedThrough, bufferStart)
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

    private func emitFinal(words: [Word]?, text: String, start: Double, end: Double, confidence: Double) {
        guard !text.trimmingCharacters(in: .whitespaces).isEmpty else { return }
        let string = attributed(words: words, text: text, start: start, end: end, confidence: confidence)
        let range = CMTimeRange(start: Self.time(start), end: Self.time(max(end, start)))
        output(SpeechTranscriber.Result(range: range, resultsFinalizationTime: range.end, alternatives: [string]))
        committedText = (committedText + text).suffix(2_000).description
        emittedText = true
        showingVolatile = false
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
        if let model, model.tokenizer.isMultilingual {
            options.language = Self.languageCode(settings.locale)
        }
        return options
    }

    /// The context's words, then the tail of the committed text, as prompt tokens.
    private func promptTokens() -> [Int] {
        guard let model else { return [] }
        var prompt = committedText
        if !contextPrompt.isEmpty { prompt = " " + contextPrompt + "." + prompt }
        guard !prompt.isEmpty else { return [] }
        return Array(model.tokenizer.encode(prompt).suffix(223))
    }

    private func notPrepared() -> SFSpeechError {
        SFSpeechError(.noModel, "The transcriber's model is not loaded; the analyzer prepares it before analysis.")
    }

    static func time(_ seconds: Double) -> CMTime { CMTime(seconds: max(seconds, 0), preferredTimescale: Int32(rate)) }

    static func languageCode(_ locale: Locale) -> String? {
        guard let code = locale.language.languageCode?.identifier.lowercased() else { return nil }
        return ["iw": "he", "jv": "jw", "nb": "no"][code] ?? code
    }

    static func normalized(_ word: String) -> String {
        word.lowercased().filter { $0.isLetter || $0.isNumber }
    }

    static func sameWord(_ a: Word, _ b: Word) -> Bool { normalized(a.word) == normalized(b.word) }
}
