import Foundation
import SpeechAssets
import SpeechAudio
import SpeechEngine

/// Runs a transcriber's audio through the Whisper engine, wiring the policies to it: final-only results come from
/// `FinalOnlyTranscription` (one long-form stream of all the audio, or of the speech a `SpeechDetector` beside it
/// found); volatile results from `LocalAgreement` over a re-decoded window. `TranscriptionResultBuilder` turns what
/// the engine heard into results.
actor TranscriptionProcessor: ModuleProcessor {
    struct Settings: Sendable {
        var locale: Locale
        var modelID: String?
        var volatile: Bool
        /// Audio between volatile mode's agreement decodings (its finals depend on it alone).
        var stepSeconds: Double
        /// New audio before a volatile-only preview decoding, when keeping up (nil: none). See `VolatileDecodeSchedule`.
        var previewSeconds: Double? = nil
        /// How a preview decodes the window (nil: as agreement decodings, over the padded 30 s).
        var previewDecoding: PreviewDecoding? = PreviewDecoding()
        var beamSize: Int
        var wordTimes: Bool
        var timeRangeAttributes: Bool
        var confidence: Bool
        var etiquette: Bool
        /// Final-only results carry the beam's other hypotheses as alternatives.
        var alternatives: Bool = false
        /// Where models are looked for.
        var store = ModelStore()
        /// The precision of the engine's products.
        var computeType = ComputeType.default
        /// Text before the audio, for the model's first prompt.
        var initialPrompt: String?
        /// The temperature fallback's temperatures (nil: the engine's).
        var temperatures: [Double]?
        /// Transcribe, or translate to English.
        var task = SpeechTranscriber.TranscriptionTask.transcribe
        /// The multilingual model detects the language, and results carry it (volatile: once, in the first speech).
        var detectsLanguage = false
        /// Final-only, with `detectsLanguage`: the language of every 30 s window is detected.
        var detectsLanguagePerWindow = false
        /// Final-only: windows encoded together (`TranscriptionOptions.encoderBatchSize`).
        var encoderBatchSize = 1
        /// Threads the engine's work is spread over (nil: the engine's default).
        var threads: Int?
    }

    static let rate = 16_000.0

    let settings: Settings
    private let output: @Sendable (SpeechTranscriber.Result) -> Void
    private let end: @Sendable ((any Error)?) -> Void

    private var model: WhisperModel?
    private var modelKey: ModelCache.Key?
    private var session: WhisperSession?
    /// Volatile previews' own session, on the model at `PreviewDecoding.computeType` (nil: previews use `session`).
    private var previewSession: WhisperSession?
    private var previewModelKey: ModelCache.Key?
    /// The context's strings (all tags): the phrases the engine's contextual biasing favours.
    private var contextPhrases: [String] = []
    /// The prompt policy for these phrases, tokenized once per context (nil: not yet, or the context changed).
    private var promptComposition: PromptComposition?
    private var finished = false
    private var results: TranscriptionResultBuilder
    /// Final text so far (its tail): the model's prompt for what follows.
    private var promptText = ""
    /// The speech regions of a `SpeechDetector` sharing the analyzer, if one does: audio it calls silence gets no text.
    private var speechRegions: SpeechRegionLog?
    /// The timeline position after the last audio received.
    private var received: Int64 = 0

    // Final-only mode.
    private var finalOnly: FinalOnlyTranscription?
    /// Samples final-only transcription gave the engine (with a detector, only its speech).
    private(set) var offlineSamplesTranscribed = 0

    // Volatile mode.
    /// Audio of the window not yet committed; `bufferStart` is the timeline sample of its first element.
    private var buffer: [Float] = []
    private var bufferStart: Int64 = 0
    private var agreement = LocalAgreement()
    /// Committed audio before the window, heard again by decodings of a short window.
    private var context = WindowContext()
    /// Results are final up to this timeline sample.
    private var finalizedThrough: Int64 = 0
    /// The end of the last final result of final-only transcription.
    private var finalSegmentsThrough: Int64 = 0
    /// The end of the last speech region of the detector whose words were committed at its pause (`PauseCommit`).
    private var pauseCommittedThrough: Int64 = 0
    /// When the window is decoded: agreement decodings on the audio's schedule, previews when keeping up.
    private var schedule: VolatileDecodeSchedule
    private var showingVolatile = false
    /// Volatile, detecting the language: the language decided in the first speech (nil before).
    private var liveLanguage: DetectedLanguage?
    /// The most audio one decoding of the window heard, in samples: what bounds a step's cost (tests read it).
    private(set) var longestWindow = 0
    var longestWindowSeconds: Double { Double(longestWindow) / Self.rate }

    /// The engine's work runs on a queue of this module's own, not on the cooperative pool.
    private let executor = EngineExecutor(label: "openspeech.transcriber")
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    init(settings: Settings, output: @escaping @Sendable (SpeechTranscriber.Result) -> Void,
         end: @escaping @Sendable ((any Error)?) -> Void) {
        self.settings = settings
        self.output = output
        self.end = end
        results = TranscriptionResultBuilder(settings: settings)
        schedule = VolatileDecodeSchedule(agreementStep: settings.stepSeconds, previewStep: settings.previewSeconds)
        // Whisper's initial prompt: text as if heard before the audio, which the transcript then continues.
        if let prompt = settings.initialPrompt.map({ PromptText.usableTail($0.trimmingCharacters(in: .whitespacesAndNewlines))
                .trimmingCharacters(in: .whitespacesAndNewlines) }), !prompt.isEmpty {
            promptText = " " + prompt
        }
    }

    /// The installed model folder for a locale (or an explicit model id) in `store`, nil if not installed.
    static func modelDirectory(locale: Locale, modelID: String?, store: ModelStore) -> URL? {
        guard let id = modelID ?? Self.modelID(for: locale, store: store) else { return nil }
        return store.installedDirectory(for: id)
    }

    /// The model for `locale`: its default, or when that is not installed, an installed model that speaks the
    /// language (a multilingual one for English when only it is installed).
    static func modelID(for locale: Locale, store: ModelStore) -> String? {
        TranscriptionPlan.installedModelID(for: locale, catalog: store.catalog, installed: Set(store.installedModelIDs))
    }

    // MARK: ModuleProcessor

    func prepare(context: AnalysisContext, retention: SpeechAnalyzer.Options.ModelRetention) async throws {
        setContext(context)
        guard model == nil else { return }
        let store = settings.store
        let name = settings.locale.identifier(.bcp47)
        let detectionModel = settings.detectsLanguage
            ? LanguageModelChoice(catalog: store.catalog, installed: Set(store.installedModelIDs))
                .detectionModelID(requested: settings.modelID)
            : nil
        guard let id = detectionModel ?? settings.modelID ?? Self.modelID(for: settings.locale, store: store) else {
            throw SFSpeechError(.cannotAllocateUnsupportedLocale,
                                "No model transcribes \(name). Pick a locale from SpeechTranscriber.supportedLocales.")
        }
        guard let directory = store.installedDirectory(for: id) else {
            throw SFSpeechError(.noModel, "The model \(id) for \(name) is not installed. Install it with "
                + "AssetInventory.assetInstallationRequest(supporting:) or `openspeech models install \(id)`.")
        }
        let key = ModelCache.Key(directory: directory, computeType: settings.computeType, threads: settings.threads)
        let loaded = try await ModelCache.shared.acquire(key, retention: retention)
        if settings.task == .translate && !loaded.tokenizer.isMultilingual {
            await ModelCache.shared.release(key)
            throw TranslationRefusal.error(modelID: id, catalog: store.catalog)
        }
        model = loaded
        modelKey = key
        session = WhisperSession(model: loaded, maxBeams: settings.beamSize)
        if settings.volatile, settings.previewSeconds != nil, let preview = settings.previewDecoding,
           let type = preview.computeType(forSession: settings.computeType) {
            let previewKey = ModelCache.Key(directory: directory, computeType: type, threads: settings.threads)
            // Previews fall back to the session's model if this one does not load.
            if let previewModel = try? await ModelCache.shared.acquire(previewKey, retention: retention) {
                previewModelKey = previewKey
                previewSession = WhisperSession(model: previewModel, maxBeams: 1)
            }
        }
    }

    /// Follows the speech regions of a `SpeechDetector` among the analyzer's modules (nil: there is none). Takes
    /// effect from the next stretch of final-only audio on.
    func follow(speechRegions regions: SpeechRegionLog?) {
        speechRegions = regions
    }

    /// The detector regions this transcriber follows, if a detector shares the analyzer.
    var gateRegions: SpeechRegionLog? { speechRegions }

    func setContext(_ context: AnalysisContext) {
        contextPhrases = context.allContextualStrings
        promptComposition = nil
    }

    func append(_ samples: [Float], at start: Int64) async throws {
        guard !finished else { return }
        if start > received && received > 0 {
            // Skipped audio: what came before is complete.
            try finalizeReceived(through: received)
            skip(to: start)
        }
        if received == 0 && start > 0 { skip(to: start) }
        received = start + Int64(samples.count)
        if settings.volatile {
            buffer.append(contentsOf: samples)
            // An utterance beginning with no word before it pending: its decodings count from its onset
            // (`VolatileDecodeSchedule.speechBegan`). Both are functions of the audio (the detector's regions, the
            // agreement decodings' words), not of previews, so the finals stay so too.
            if let onset = speechRegions?.speechInProgressStart, agreement.pending.isEmpty {
                schedule.speechBegan(at: onset)
            }
            let decoding = schedule.received(through: bufferStart + Int64(buffer.count), at: Self.now())
            // At a pause the commit's decoding takes the place of the one scheduled.
            guard try !commitAtPause() else { return }
            switch decoding {
            case .agreement: try decodeVolatile()
            case .preview: try previewVolatile()
            case nil: break
            }
        } else {
            let stream = try finalOnlyStream(at: start)
            let before = stream.samplesTranscribed
            let segments = try stream.append(samples)
            offlineSamplesTranscribed += stream.samplesTranscribed - before
            emit(segments)
        }
    }

    func finalize(through endSample: Int64?) async throws {
        guard !finished else { return }
        try finalizeReceived(through: min(endSample ?? received, received))
    }

    func cancel(before start: Int64) async {
        guard settings.volatile else {
            guard let finalOnly else { return }
            finalOnly.cancel(before: start)
            // The samples kept were appended once already: they are finite, and the new stream takes them.
            try? finalOnly.resume(prompt: promptTokens(promptText))
            return
        }
        let drop = Int(min(max(start - bufferStart, 0), Int64(buffer.count)))
        guard drop > 0 else { return }
        dropBuffered(drop)
        context.reset(at: bufferStart)
        schedule.restart(at: bufferStart)
        agreement.skip(to: Double(bufferStart) / Self.rate)
        finalizedThrough = max(finalizedThrough, bufferStart)
    }

    func finish(throwing error: (any Error)?) async {
        guard !finished else { return }
        finished = true
        buffer = []
        finalOnly = nil
        session = nil
        previewSession = nil
        model = nil
        if let modelKey { await ModelCache.shared.release(modelKey) }
        if let previewModelKey { await ModelCache.shared.release(previewModelKey) }
        end(error)
    }

    private func finalizeReceived(through endSample: Int64) throws {
        if settings.volatile {
            guard endSample > bufferStart else { return }
            try commitVolatile(through: endSample)
        } else if let finalOnly {
            let before = finalOnly.samplesTranscribed
            let segments = try finalOnly.finish(at: endSample)
            offlineSamplesTranscribed += finalOnly.samplesTranscribed - before
            emit(segments)
            try finalOnly.resume(prompt: promptTokens(promptText))
        }
    }

    /// Audio jumps to timeline sample `start`: nothing before it is transcribed.
    private func skip(to start: Int64) {
        if settings.volatile {
            buffer.removeAll(keepingCapacity: true)
            bufferStart = start
            context.reset(at: start)
            schedule.restart(at: start)
            agreement.skip(to: Double(start) / Self.rate)
        } else {
            finalOnly = nil
        }
    }

    var resultsFinalThrough: Int64? { max(finalizedThrough, finalSegmentsThrough) }

    // MARK: Final-only transcription

    /// The final-only stream, started at `start` if there is none.
    private func finalOnlyStream(at start: Int64) throws -> FinalOnlyTranscription {
        if let finalOnly { return finalOnly }
        guard let session else { throw notPrepared() }
        let stream = FinalOnlyTranscription(session: session, options: engineOptions(), start: start,
                                            regions: speechRegions, prompt: promptTokens(promptText))
        finalOnly = stream
        return stream
    }

    private func emit(_ segments: [Segment]) {
        for segment in segments {
            let language = settings.detectsLanguage ? segment.language ?? finalOnly?.language : nil
            guard let (result, text) = results.final(segment, language: language) else { continue }
            output(result)
            finalSegmentsThrough = max(finalSegmentsThrough, Int64((segment.end * Self.rate).rounded()))
            promptText = (promptText + text).suffix(2_000).description
        }
    }

    // MARK: Volatile transcription (LocalAgreement-2)

    /// Decodes the window, commits the words that agree with the previous decoding, shows the rest.
    private func decodeVolatile() throws {
        let words = try decodeWindowWords(kind: .agreement)
        schedule.decoded(.agreement, through: bufferStart + Int64(buffer.count))
        commit(agreement.agree(with: words, heardThrough: Double(bufferStart + Int64(buffer.count)) / Self.rate))
        showVolatile()
        trimWindow()
    }

    /// Decodes the window and shows its words as volatile, leaving the agreement alone (see
    /// `VolatileDecodeSchedule`): the finals do not depend on whether previews ran.
    private func previewVolatile() throws {
        // A window past Whisper's 30 s is the agreement decoding's to handle (it commits): no preview of it.
        guard buffer.count <= Int(28 * Self.rate) else { return }
        let words = try decodeWindowWords(kind: .preview)
        schedule.decoded(.preview, through: bufferStart + Int64(buffer.count))
        guard !words.isEmpty || showingVolatile else { return }
        output(results.volatile(words, start: agreement.committedEnd,
                                end: Double(bufferStart + Int64(buffer.count)) / Self.rate,
                                language: liveLanguage?.language))
        showingVolatile = !words.isEmpty
    }

    /// When the detector beside the transcriber has closed the speech heard after the last final (a pause of its
    /// `minSilenceDuration`), that speech's words become final now, from a decoding of the window through the pause,
    /// instead of waiting for two agreement decodings (`PauseCommit`); returns whether it committed. A function of the
    /// audio alone: the analyzer gives each buffer to the detector before the transcriber, so the detector's regions
    /// at a buffer do not depend on timing.
    private func commitAtPause() throws -> Bool {
        guard let regions = speechRegions else { return false }
        let end = bufferStart + Int64(buffer.count)
        let known = regions.snapshot(overlapping: bufferStart..<end, margin: 0)
        guard let through = PauseCommit.commitPoint(closedRegions: known.regions, speechInProgress: known.openStart != nil,
                                                    finalizedThrough: max(finalizedThrough, pauseCommittedThrough),
                                                    received: end)
        else { return false }
        pauseCommittedThrough = through
        try commitVolatile(through: through)
        return true
    }

    /// Wall-clock seconds (monotonic), for the schedule's estimate of the backlog.
    private static func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

    /// Commits everything up to `endSample`, decoding the latest audio first, and drops that audio.
    private func commitVolatile(through endSample: Int64) throws {
        if schedule.agreedThrough < bufferStart + Int64(buffer.count) || agreement.pending.isEmpty {
            agreement.setPending(try decodeWindowWords(kind: .agreement, force: true))
            schedule.decoded(.agreement, through: bufferStart + Int64(buffer.count))
        }
        let limit = Double(endSample) / Self.rate
        commit(agreement.takePending(endingBy: limit), through: limit)
        agreement.dropPendingBeforeCommit()
        showVolatile()
        trimWindow(force: true)
    }

    /// The words of the current window after the committed ones. The whole window is decoded with the text
    /// before it as prompt; a preview more cheaply (`Settings.previewDecoding`).
    private func decodeWindowWords(kind: VolatileDecodeSchedule.Decoding, force: Bool = false) throws -> [Word] {
        guard let session else { throw notPrepared() }
        // Whisper hears at most 30 s: a window that grew past it (no agreement that long) is committed.
        if buffer.count > Int(28 * Self.rate) {
            commit(agreement.takeAllPending())
            trimWindow(force: true)
            if buffer.count > Int(28 * Self.rate) { // nothing recognized: keep only the last seconds
                dropBuffered(buffer.count - Int(5 * Self.rate))
                context.reset(at: bufferStart)
            }
        }
        let gate = speechRegions.map(SpeechGate.init)
        guard buffer.count >= Int(0.1 * Self.rate),
              let window = gate.map({ $0.gated(buffer, from: bufferStart) }) ?? buffer else { return [] }
        if settings.detectsLanguage && liveLanguage == nil {
            // The language is decided in the first speech, then kept: until then nothing is decoded.
            guard try decideLiveLanguage(window, force: force) else { return [] }
        }
        // An agreement decoding of a short window hears the committed audio before it (`WindowContext`).
        var audio = window, audioStart = bufferStart, prompt = promptText
        if kind == .agreement, let heard = context.before(windowOf: window.count) {
            let before = Array(heard.samples)
            audio = (gate.map { $0.gated(before, from: heard.start) ?? [Float](repeating: 0, count: before.count) } ?? before)
                + window
            audioStart = heard.start
            if promptText.hasSuffix(heard.text) { prompt = String(promptText.dropLast(heard.text.count)) }
        }
        longestWindow = max(longestWindow, audio.count)
        var options = engineOptions()
        options.wordTimestamps = true
        options.temperatures = [0]
        // Agreement decodings hear the padded 30 s as file transcription does: their words become finals.
        let cheaper = kind == .preview ? settings.previewDecoding : nil
        if let cheaper {
            // Tokens in proportion to the speech heard, not to the window (muted audio before an utterance's first
            // half second made previews loop on for tokens no one reads).
            let windowRange = bufferStart..<(bufferStart + Int64(window.count))
            options.maxNewTokens = cheaper.maxNewTokens(forSamples: gate.map { $0.speechSamples(in: windowRange) } ?? window.count)
            options.beamSize = 1 // a preview is shown and forgotten: greedy
            options.bestOf = 1
        }
        let decoder = cheaper != nil ? previewSession ?? session : session
        let started = Self.now()
        var segments = try decoder.decodeWindow(samples: audio, previousTokens: promptTokens(prompt),
                                                timeOffset: Double(audioStart) / Self.rate, options: options,
                                                encodedPositions: cheaper?.positions(forSamples: window.count))
        // An agreement decoding that stopped before speech it never wrote (`SkippedSpeech`: a second or more of the
        // detector's speech after its last word, or between two) goes on from there, as file transcription's next
        // window would: the rest of the audio decoded again after the text kept.
        if cheaper == nil, let gate,
           let resume = SkippedSpeech.resumption(after: segments, windowStart: Double(audioStart) / Self.rate,
                                                 windowEnd: Double(audioStart + Int64(audio.count)) / Self.rate,
                                                 speech: { gate.speechSamples(in: Int64($0.lowerBound)..<Int64($0.upperBound)) }) {
            let kept = segments.prefix(resume.kept)
            let from = min(max(Int((resume.seconds * Self.rate).rounded()) - Int(audioStart), 0), audio.count)
            segments = Array(kept) + (try decoder.decodeWindow(
                samples: Array(audio[from...]), previousTokens: promptTokens(prompt + kept.map(\.text).joined()),
                timeOffset: Double(audioStart + Int64(from)) / Self.rate, options: options))
        }
        schedule.measured(kind, decodeSeconds: Self.now() - started)
        let speech = segments.filter { !($0.noSpeechProb > 0.6 && $0.avgLogProb < -1) }
        var words = speech.flatMap { $0.words ?? [] }
        if let cheaper { words = cheaper.withoutLoops(words) }
        if let gate { words = gate.keep(words) }
        return agreement.fresh(words)
    }

    /// Emits `words` as one final result covering the audio from the last commit to their end.
    private func commit(_ words: [Word], through limit: Double? = nil) {
        let from = Double(finalizedThrough) / Self.rate
        if let (start, end) = agreement.commit(words, from: from, through: limit),
           let (result, _) = results.final(words: words, text: words.map(\.word).joined(), start: start, end: end,
                                           confidence: words.map(\.probability).reduce(0, +) / Double(words.count),
                                           language: liveLanguage?.language) {
            output(result)
            showingVolatile = false
        }
        finalizedThrough = max(finalizedThrough, Int64((agreement.committedEnd * Self.rate).rounded()))
    }

    /// Moves committed audio out of the window once a sentence is complete, or the window passes 15 s, or
    /// when forced: its words then become prompt text.
    private func trimWindow(force: Bool = false) {
        guard agreement.committedEnd > Double(bufferStart) / Self.rate else { return }
        guard force || agreement.shouldTrim(windowSeconds: Double(buffer.count) / Self.rate) else { return }
        let drop = min(buffer.count, max(0, Int((agreement.committedEnd * Self.rate).rounded()) - Int(bufferStart)))
        let words = agreement.trimmedWords()
        context.append(buffer[..<drop], endingAt: bufferStart + Int64(drop), words: words)
        dropBuffered(drop)
        schedule.restart(at: bufferStart)
        // Committed text that loops ("to pay the money to pay the money ...", which a live run committed) is not given
        // to the model as what was said before: every later decoding would copy it (that run carried it across five
        // clips). The prompt starts again empty, as Whisper resets its prompt after a window decoded at a high
        // temperature.
        let prompt = promptText + words.map(\.word).joined()
        promptText = RepetitionGuard.hasLoop(prompt) ? "" : prompt.suffix(2_000).description
    }

    /// Moves the first `count` buffered samples out of the window, advancing `bufferStart` past them.
    private func dropBuffered(_ count: Int) {
        buffer.removeFirst(count)
        bufferStart += Int64(count)
    }

    private func showVolatile() {
        guard !agreement.pending.isEmpty || showingVolatile else { return }
        let result = results.volatile(agreement.pending, start: agreement.committedEnd,
                                      end: Double(bufferStart + Int64(buffer.count)) / Self.rate,
                                      language: liveLanguage?.language)
        output(result)
        showingVolatile = !agreement.pending.isEmpty
    }

    // MARK: Engine settings

    private func engineOptions() -> TranscriptionOptions {
        var options = TranscriptionOptions()
        options.beamSize = settings.beamSize
        options.bestOf = settings.beamSize
        options.wordTimestamps = settings.wordTimes
        // Volatile mode commits agreed words, not the beam's segments: it has no alternatives to keep.
        options.alternatives = settings.alternatives && !settings.volatile
        options.biasingPhrases = contextPhrases
        options.encoderBatchSize = settings.encoderBatchSize
        if let temperatures = settings.temperatures, !temperatures.isEmpty { options.temperatures = temperatures }
        if let model, model.tokenizer.isMultilingual {
            options.language = settings.detectsLanguage ? liveLanguage?.language
                : LocaleModelResolver.whisperLanguage(of: settings.locale)
            options.detectsLanguagePerWindow = settings.detectsLanguagePerWindow
            options.task = settings.task == .translate ? .translate : .transcribe
        }
        return options
    }

    /// The prompt before the next window: the context's words (when few), then the tail of `text`.
    private func promptTokens(_ text: String) -> [Int] {
        guard let model else { return [] }
        let composition = promptComposition ?? PromptComposition(contextTokens: contextPhrases.isEmpty ? []
            : model.tokenizer.encode(" " + contextPhrases.joined(separator: ", ") + "."))
        promptComposition = composition
        return composition.tokens(previous: text.isEmpty ? [] : model.tokenizer.encode(text))
    }

    /// Detects the language of the live window's speech once there is enough of it (`LiveLanguageDecision`), or
    /// now when `force`d (the audio ends); returns whether the language is decided.
    private func decideLiveLanguage(_ speech: [Float], force: Bool) throws -> Bool {
        guard let session else { throw notPrepared() }
        let decision = LiveLanguageDecision()
        guard decision.shouldDetect(speechSamples: speech.count, force: force) else { return false }
        let window = Array(speech.prefix(FirstSpeech.windowSamples))
        let ranked = try session.detectLanguage(
            samples: window, encodedPositions: DetectionEncoding().positions(forSamples: window.count))
        guard let top = ranked.first else { return false }
        guard decision.accepts(probability: top.probability, speechSamples: speech.count, force: force) else { return false }
        liveLanguage = DetectedLanguage(language: top.language, probability: top.probability)
        return true
    }

    private func notPrepared() -> SFSpeechError {
        SFSpeechError(.noModel, "The transcriber's model is not loaded; the analyzer prepares it before analysis.")
    }
}
