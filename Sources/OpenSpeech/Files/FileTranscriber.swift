import Foundation
import SpeechAssets
import SpeechAudio
import SpeechEngine
import Synchronization

/// Transcribes recordings to a `Transcript`: the file workflow of `openspeech transcribe` (and of the server) as a
/// library entry point. Not in Apple's API. Each file is opened and decoded once, to 16 kHz mono, as it is
/// transcribed; a `SpeechDetector` beside the `SpeechTranscriber` (unless `Options.detectsSpeech` is off) gives the
/// model only the speech, carrying the text before as prompt, so silence and noise get no invented text and cost
/// nothing. With `Options.detectsLanguage`, the language is heard on that same pass (`FileAudioPass`). What runs is
/// decided once per file from the options and the models installed (`TranscriptionPlan`).
///
/// The transcript is a function of the audio, the model and the options: the same file gives the same text and times
/// on every run, whatever else the process did before.
public struct FileTranscriber: Sendable {
    /// What to transcribe with and how: the language, model, decoding and speech detection settings.
    public struct Options: Sendable, Equatable {
        /// The language of the speech (with `detectsLanguage`: only for audio without speech, whose language cannot
        /// be heard).
        public var locale: Locale
        /// Detect the language of each file from its first speech instead of taking `locale`, then transcribe it with
        /// the best installed model for that language (`modelID`, if given, is used whatever the language; an
        /// English-only one gets a warning when the speech is not English). Not in Apple's API.
        public var detectsLanguage: Bool
        /// With `detectsLanguage`: detect the language of every 30 s window instead of the file's first speech only
        /// (for recordings in several languages), all transcribed by the multilingual model; each segment carries
        /// its window's language (`Transcript.Segment.language`). Not in Apple's API.
        public var detectsLanguagePerWindow: Bool
        /// Transcribe in the language spoken, or translate to English (multilingual models only).
        public var task: SpeechTranscriber.TranscriptionTask
        /// A catalog model to use instead of the locale's default.
        public var modelID: String?
        /// Beam width (1: greedy); nil: the model family's default (Whisper's 5, Moonshine's greedy).
        public var beamSize: Int?
        /// Time ranges and confidence per word (for subtitles and JSON), not only per segment.
        public var wordTimestamps: Bool
        /// Whether a speech detector chooses what the model hears (off: every sample is transcribed).
        public var detectsSpeech: Bool
        /// Whether a truncated file is an error (otherwise the audio present is transcribed, with a warning).
        public var strict: Bool
        /// The precision of the engine's products; nil: `defaultComputeType`.
        public var computeType: ComputeType?
        /// Words and phrases to favour (names, jargon): the analysis context's contextual strings, so they go into
        /// the model's prompt and are boosted in decoding.
        public var contextualStrings: [String]
        /// Text as if heard before the audio (spelling, style, names), as whisper's `--initial_prompt`.
        public var prompt: String?
        /// The temperature fallback's temperatures, tried in order (nil: 0, 0.2 ... 1.0; `[0]`: no fallback).
        public var temperatures: [Double]?
        /// 30 s windows encoded together (the one being decoded and full ones after it; identical text at every
        /// size; 1: one at a time). See `SpeechTranscriber.EngineConfiguration.encoderBatchSize`.
        public var encoderBatchSize = 1
        /// Threads the engine's work is spread over (nil: `OPENBLAS_NUM_THREADS` if set, else the cores available);
        /// the text is the same at every count.
        public var threads: Int?

        /// Options for `locale`; by default its model, beam 5, segment times only, speech detection on and lenient
        /// with truncated files.
        public init(locale: Locale, modelID: String? = nil, beamSize: Int? = nil, wordTimestamps: Bool = false,
                    detectsSpeech: Bool = true, strict: Bool = false, computeType: ComputeType? = nil,
                    contextualStrings: [String] = [], prompt: String? = nil, temperatures: [Double]? = nil,
                    detectsLanguage: Bool = false, task: SpeechTranscriber.TranscriptionTask = .transcribe,
                    detectsLanguagePerWindow: Bool = false, threads: Int? = nil) {
            self.threads = threads
            self.detectsLanguagePerWindow = detectsLanguagePerWindow
            self.prompt = prompt
            self.temperatures = temperatures
            self.detectsLanguage = detectsLanguage
            self.task = task
            self.computeType = computeType
            self.contextualStrings = contextualStrings
            self.locale = locale
            self.modelID = modelID
            self.beamSize = beamSize
            self.wordTimestamps = wordTimestamps
            self.detectsSpeech = detectsSpeech
            self.strict = strict
        }

        /// The compute type used when none is given: `auto` (int8 with oneDNN, about twice faster-whisper int8's
        /// speed) when the speech detector is on, `float32` (the engine's reference) when it is off. int8 turns
        /// last-bit differences into other words, now and then into a sentence the decoder steps over; the detector's
        /// speech is what catches that (`SkippedSpeech`), so only with it is int8 the default.
        public var defaultComputeType: ComputeType { detectsSpeech ? .auto : .float32 }

        /// What these options ask of the model beyond the language: a prompt, when one is given (with no model named,
        /// a model that takes one runs).
        public var needs: CatalogModel.Capabilities {
            prompt.map { !$0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty } == true ? .prompt : []
        }

        /// The compute type the transcription runs in: the one given, else `defaultComputeType`.
        public var effectiveComputeType: ComputeType { computeType ?? defaultComputeType }
    }

    /// What happens during a transcription, for a progress display.
    public enum Event: Sendable, Equatable {
        /// Models are being installed: the fraction done.
        case installing(Double)
        /// Transcription has reached this fraction of the file (by its declared duration, when it declares one).
        case progress(Double)
        /// Something the user should know that does not stop the transcription (a truncated file).
        case warning(String)
        /// The text of a final result, as soon as it is final, in order: concatenated, they are the transcript's
        /// text (before its outer whitespace is trimmed). For clients that stream the text as it comes.
        case finalText(String)
        /// The language detected in the file's first speech (`Options.detectsLanguage`), before it is transcribed.
        case languageDetected(DetectedLanguage)
        /// The catalog model that transcribes the file and the compute type it runs in on this machine (`auto`
        /// resolved; nil for a family whose products run as its weights are stored: Moonshine), as the transcription
        /// starts.
        case model(id: String, computeType: ComputeType?)
    }

    /// The settings every transcription of this transcriber uses.
    public let options: Options
    /// Where models are looked for and installed.
    public let store: ModelStore

    /// A transcriber with `options` whose models are looked for and installed in `store`.
    public init(options: Options, store: ModelStore = ModelStore()) {
        self.options = options
        self.store = store
    }

    /// The catalog ids of the models this transcription needs (the transcriber's, then the detector's). Throws
    /// `ModelAssetError.invalidCatalog` when a catalog file cannot be read, and for a locale no model covers.
    /// With `detectsLanguage`, the transcriber's model is the one that detects (the model chosen for a language
    /// detected is installed or is that one); throws `SFSpeechError(.noModel)` when the catalog has no multilingual
    /// model, `.cannotAllocateUnsupportedLocale` for translation by an English-only model.
    public func requiredModelIDs() throws -> [String] { try plan().requiredModelIDs }

    /// The catalog id of the model that transcribes with these options, as the models are installed now: `modelID`
    /// if given, else the locale's (the most accurate installed model that speaks the language, else its default);
    /// with `detectsLanguage`, the model that detects the language (each file's own model is chosen
    /// once its language is heard, and reported as `Event.model`). Throws as `requiredModelIDs()` does.
    public func transcriptionModelID() throws -> String { try plan().modelID }

    /// What these options run with the catalog and the models installed now. Throws as `requiredModelIDs()` does.
    func plan() throws -> TranscriptionPlan {
        try store.validateCatalogs()
        return try TranscriptionPlan(
            .init(locale: options.locale, modelID: options.modelID, task: options.task,
                  detectsLanguage: options.detectsLanguage, detectsLanguagePerWindow: options.detectsLanguagePerWindow,
                  detectsSpeech: options.detectsSpeech, needs: options.needs),
            store: store)
    }

    /// OpenSpeech extension: the language spoken in `samples` (16 kHz mono), as a transcription of them with
    /// `detectsLanguage` would decide it (the multilingual model that detects, on the first speech the detector finds
    /// when `detectsSpeech`); nil when they hold no speech. Throws `SFSpeechError(.noModel)` when that model is not
    /// installed. Live transcription that starts in a likely language checks the speech with it (`openspeech listen`).
    public func detectLanguage(samples: [Float]) async throws -> DetectedLanguage? {
        var detecting = options
        detecting.detectsLanguage = true
        detecting.modelID = nil
        let modelID = try FileTranscriber(options: detecting, store: store).requiredModelIDs()[0]
        return try await identifyLanguage(of: .samples(samples), modelID: modelID)
    }

    /// The language of `input`'s first speech as `modelID` hears it, with these options' detector, compute type
    /// and threads.
    private func identifyLanguage(of input: SpokenLanguageIdentifier.Input, modelID: String) async throws -> DetectedLanguage? {
        try await SpokenLanguageIdentifier().identify(
            input, modelID: modelID, computeType: options.effectiveComputeType, threads: options.threads,
            detectsSpeech: options.detectsSpeech, store: store)
    }

    /// The required models that are not installed.
    public func missingModelIDs() throws -> [String] {
        try requiredModelIDs().filter { store.installedDirectory(for: $0) == nil }
    }

    /// Installs the required models that are missing, reporting `.installing` events.
    public func installModels(events: @escaping @Sendable (Event) -> Void = { _ in }) async throws {
        let missing = try missingModelIDs()
        _ = try await prepareModels(installing: true) { id, fraction in
            events(.installing((Double(missing.firstIndex(of: id) ?? 0) + fraction) / Double(max(1, missing.count))))
        }
    }

    /// Makes the required models ready before any audio is read, the one rule every front end follows: with
    /// `installing`, installs each missing model, reporting `progress(modelID, fraction)` from 0 to 1; without, installs
    /// nothing. Returns the transcription's model when it is still missing (the caller refuses the work, in its own
    /// words), nil when the transcription can run: a missing speech detector model is not needed (its energy
    /// fallback runs, with a warning). Throws as `requiredModelIDs()` does, and the install's errors.
    public func prepareModels(installing: Bool,
                              progress: @escaping @Sendable (_ modelID: String, _ fraction: Double) -> Void = { _, _ in })
        async throws -> String? {
        let required = try requiredModelIDs()
        let missing = required.filter { store.installedDirectory(for: $0) == nil }
        guard installing else { return missing.contains(required[0]) ? required[0] : nil }
        for id in missing {
            progress(id, 0)
            try await store.install(id) { done, total in progress(id, total > 0 ? Double(done) / Double(total) : 0) }
        }
        return nil
    }

    /// Transcribes the first audio stream of the file at `url` (any container FFmpeg reads). Throws `AudioError` for
    /// a file that cannot be read, `SFSpeechError(.noModel)` when the model is not installed.
    /// Cancelling the calling task stops the transcription at the engine's next window and throws
    /// `CancellationError` (a server whose client went away).
    public func transcribe(contentsOf url: URL, events: @escaping @Sendable (Event) -> Void = { _ in }) async throws -> Transcript {
        let audio = try open(url)
        guard detectsLanguageFirst else { return try await transcribe(audio, events: events) }
        return try await overlappingLikelyModelLoad {
            try await transcribe(audio, decision: decideLanguage(of: .file(audio), name: url.path), events: events)
        }
    }

    /// Transcribes the files at `urls` in order, each as `transcribe(contentsOf:events:)` does: one element per file
    /// as it ends, its transcript or its error. With `detectsLanguage`, the next file's language is detected while a
    /// file is transcribed (on cores the transcription leaves idle), so detection adds little time to a folder of
    /// recordings; the results are those of the files one at a time, and each file's events come with its own.
    /// Stopping the iteration cancels the rest.
    public func transcriptions(of urls: [URL], events: @escaping @Sendable (URL, Event) -> Void = { _, _ in })
        -> AsyncStream<(url: URL, result: Result<Transcript, any Error>)> {
        let (stream, continuation) = AsyncStream.makeStream(of: (url: URL, result: Result<Transcript, any Error>).self)
        let decide = { @Sendable (url: URL) in
            Task { () async throws -> (FileAudioPass, LanguageDecision) in
                let audio = try self.open(url)
                return (audio, try await self.decideLanguage(of: .file(audio), name: url.path))
            }
        }
        @Sendable func transcribeInOrder() async {
            var upcoming: Task<(FileAudioPass, LanguageDecision), any Error>?
            defer { upcoming?.cancel() }
            for (index, url) in urls.enumerated() where !Task.isCancelled {
                let report = { @Sendable (event: Event) in events(url, event) }
                let result: Result<Transcript, any Error>
                do {
                    if detectsLanguageFirst {
                        let pending = upcoming ?? decide(url)
                        let decided = await pending.result
                        upcoming = index + 1 < urls.count ? decide(urls[index + 1]) : nil
                        let (audio, decision) = try decided.get()
                        result = .success(try await transcribe(audio, decision: decision, events: report))
                    } else {
                        result = .success(try await transcribe(open(url), events: report))
                    }
                } catch {
                    result = .failure(error)
                }
                continuation.yield((url, result))
            }
        }
        let work = Task {
            if detectsLanguageFirst && !urls.isEmpty {
                await overlappingLikelyModelLoad(transcribeInOrder)
            } else {
                await transcribeInOrder()
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in work.cancel() }
        return stream
    }

    /// Opens the file at `url` for one pass: language detection, if any, and the transcription read it once.
    private func open(_ url: URL) throws -> FileAudioPass {
        try FileAudioPass(url: url, strict: options.strict, detectorStore: options.detectsSpeech ? store : nil)
    }

    /// Transcribes `audio` as `decision` says (its language detected before, on the same pass).
    private func transcribe(_ audio: FileAudioPass, decision: LanguageDecision,
                            events: @escaping @Sendable (Event) -> Void) async throws -> Transcript {
        decision.report(to: events)
        return decision.labelled(try await decision.transcriber.transcribe(audio, events: events))
    }

    /// Transcribes the rest of a pass over a file (all of it, or after language detection's reading).
    private func transcribe(_ audio: FileAudioPass, events: @escaping @Sendable (Event) -> Void) async throws -> Transcript {
        let cancellation = Cancellation()
        return try await withTaskCancellationHandler {
            let run = try await analyze(.file(audio), expectedDuration: audio.declaredDuration, cancellation: cancellation,
                                        events: events)
            if let truncation = run.truncation {
                events(.warning("\(audio.url.path): \(truncation); transcribing the \(String(format: "%.2f", truncation.presentDuration)) s present."))
            }
            return run.transcript
        } onCancel: {
            cancellation.cancel()
        }
    }

    /// Transcribes 16 kHz mono samples. Cancellable as `transcribe(contentsOf:)` is.
    public func transcribe(samples: [Float], events: @escaping @Sendable (Event) -> Void = { _ in }) async throws -> Transcript {
        if detectsLanguageFirst {
            return try await overlappingLikelyModelLoad {
                let decision = try await decideLanguage(of: .samples(samples), name: "the audio")
                decision.report(to: events)
                return decision.labelled(try await decision.transcriber.transcribe(samples: samples, events: events))
            }
        }
        let cancellation = Cancellation()
        return try await withTaskCancellationHandler {
            try await analyze(.samples(samples), expectedDuration: Double(samples.count) / MonoAudio.speechSampleRate,
                              cancellation: cancellation, events: events).transcript
        } onCancel: {
            cancellation.cancel()
        }
    }

    /// Carries a task's cancellation to the analyzer, which exists only once the analysis starts.
    private final class Cancellation: Sendable {
        private let state = Mutex<(cancelled: Bool, analyzer: SpeechAnalyzer?)>((false, nil))

        /// Registers the running analyzer; cancels it at once if the task was cancelled already.
        func attach(_ analyzer: SpeechAnalyzer) {
            let cancelled = state.withLock { state in
                state.analyzer = analyzer
                return state.cancelled
            }
            if cancelled { analyzer.cancelAndFinishNow() }
        }

        func cancel() {
            let analyzer = state.withLock { state in
                state.cancelled = true
                return state.analyzer
            }
            analyzer?.cancelAndFinishNow()
        }
    }

    private enum Input: Sendable {
        case file(FileAudioPass)
        case samples([Float])

        var file: FileAudioPass? {
            if case .file(let audio) = self { audio } else { nil }
        }
    }

    /// Runs an analyzer with the transcriber (and detector) over `input`; returns the transcript and, for a
    /// truncated file, how it was cut.
    private func analyze(_ input: Input, expectedDuration: Double?, cancellation: Cancellation,
                         events: @escaping @Sendable (Event) -> Void)
        async throws -> (transcript: Transcript, truncation: AudioTruncation?) {
        let timed = options.wordTimestamps
        let plan = try plan()
        let perWindow = plan.language == .detectedPerWindow
        let transcriber = SpeechTranscriber(
            locale: options.locale, transcriptionOptions: [], reportingOptions: [],
            attributeOptions: timed ? [.audioTimeRange, .transcriptionConfidence] : [],
            engineConfiguration: .init(modelID: plan.modelID,
                                       beamSize: options.beamSize, wordTimestamps: timed, computeType: options.effectiveComputeType,
                                       initialPrompt: options.prompt, temperatures: options.temperatures, task: options.task,
                                       detectsLanguage: perWindow, detectsLanguagePerWindow: perWindow, threads: options.threads)
                .encodingBatches(of: options.encoderBatchSize),
            modelStore: store)
        // A file's detector hands out the speech scores its language detection computed on the same pass.
        var voiceActivity: (@Sendable () -> (any VoiceActivityDetector, SpeechDetector.Backend)?)?
        if let audio = input.file { voiceActivity = { audio.transcriptionDetector() } }
        let detector = options.detectsSpeech
            ? SpeechDetector(detectionOptions: .init(sensitivityLevel: .medium), reportResults: false, modelStore: store,
                             voiceActivity: voiceActivity)
            : nil
        let modelID = plan.modelID
        let modules: [any SpeechModule] = [transcriber] + (detector.map { [$0] } ?? [])
        let analyzer = SpeechAnalyzer(modules: modules, options: .init(priority: .userInitiated, modelRetention: .processLifetime))
        if !options.contextualStrings.isEmpty {
            let context = AnalysisContext()
            context.contextualStrings[.general] = options.contextualStrings
            try await analyzer.setContext(context)
        }
        let collector = Task {
            var results: [SpeechTranscriber.Result] = []
            for try await result in transcriber.results {
                results.append(result)
                if result.isFinal { events(.finalText(String(result.text.characters))) }
                if let expectedDuration, expectedDuration > 0 {
                    events(.progress(min(1, result.range.end.seconds / expectedDuration)))
                }
            }
            return results
        }
        cancellation.attach(analyzer)
        events(.progress(0))
        events(.model(id: modelID,
                      computeType: store.computeTypeApplies(to: modelID) ? options.effectiveComputeType.resolved : nil))
        let fed: (samples: Int64, truncation: AudioTruncation?)
        do {
            switch input {
            case .file(let audio):
                fed = try await analyzer.analyzeSequence(from: audio)
            case .samples(let samples):
                _ = try await analyzer.analyzeSequence(Self.inputs(samples))
                fed = (Int64(samples.count), nil)
            }
            // Cancelled while the audio was read: no final decoding (for a short file, all of its decoding).
            try Task.checkCancellation()
            try await analyzer.finalizeAndFinishThroughEndOfInput()
            try Task.checkCancellation()
        } catch {
            collector.cancel()
            analyzer.cancelAndFinishNow()
            throw error
        }
        let results = try await collector.value
        try Task.checkCancellation()
        if await detector?.backend == .energy {
            events(.warning("the speech detector's model \(SpeechDetector.modelID) is not installed (or did not load), so "
                + "its energy-based fallback chose what the model heard, and the text may differ; install it with "
                + "`openspeech models install \(SpeechDetector.modelID)`."))
        }
        let language = (perWindow ? results.lazy.compactMap(\.language).first : nil)
            ?? options.locale.language.languageCode?.identifier ?? "en"
        let transcript = Transcript(results: results, language: language,
                                    duration: Double(fed.samples) / MonoAudio.speechSampleRate, model: modelID)
        return (transcript, fed.truncation)
    }

    // MARK: Language detection

    /// Speech whose detected language is not English, at or above this probability, gets a warning when an
    /// English-only model is forced on it.
    static let wrongModelWarningProbability = 0.5

    /// Loads, beside the first detection, the model that would transcribe speech in `options.locale`'s language (a
    /// guess: most recordings are in their user's language), so that detection overlaps that model's load instead of
    /// preceding it. No result changes: speech in another language gets its own model, and the guessed one stays
    /// loaded as every file transcription's model does (`.processLifetime`). The task's value is the key to release
    /// once the transcription is done (nil: nothing loaded).
    private func loadingLikelyModel() -> Task<ModelCache.Key?, Never> {
        Task {
            guard let plan = try? plan(), let language = options.locale.language.languageCode?.identifier else { return nil }
            let id = plan.modelID(forDetected: language)
            guard let key = try? ModelCache.Key(installed: id, store: store, computeType: options.effectiveComputeType,
                                                threads: options.threads) else { return nil }
            guard (try? await ModelCache.shared.acquire(key, retention: .processLifetime)) != nil else { return nil }
            return key
        }
    }

    /// Gives back the model `loadingLikelyModel` loaded.
    private static func release(_ likely: Task<ModelCache.Key?, Never>) async {
        if let key = await likely.value { await ModelCache.shared.release(key) }
    }

    /// Runs `body` (detections, then transcriptions) while the likely model loads, then gives that model back.
    private func overlappingLikelyModelLoad<T>(_ body: () async throws -> T) async rethrows -> T {
        let likely = loadingLikelyModel()
        do {
            let value = try await body()
            await Self.release(likely)
            return value
        } catch {
            await Self.release(likely)
            throw error
        }
    }

    /// Whether each input's language is detected before it is transcribed (in its first speech).
    private var detectsLanguageFirst: Bool {
        options.detectsLanguage && (!options.detectsLanguagePerWindow || (try? plan().language) != .detectedPerWindow)
    }

    /// What detection decided for one input: the transcriber for it (language given, its model chosen), the
    /// language detected (nil: no speech, or only a check for a forced English-only model) and a warning.
    private struct LanguageDecision: Sendable {
        let transcriber: FileTranscriber
        var detected: DetectedLanguage?
        var warning: String?

        /// Tells the user what was decided, as the input's transcription starts.
        func report(to events: (Event) -> Void) {
            if let warning { events(.warning(warning)) }
            if let detected { events(.languageDetected(detected)) }
        }

        /// `transcript` with the detected language's probability.
        func labelled(_ transcript: Transcript) -> Transcript {
            var transcript = transcript
            transcript.languageProbability = detected?.probability
            return transcript
        }
    }

    /// Detects the language of `input` and decides how to transcribe it.
    private func decideLanguage(of input: SpokenLanguageIdentifier.Input, name: String) async throws -> LanguageDecision {
        var resolved = options
        resolved.detectsLanguage = false
        let plan = try plan()
        if case .checkedForEnglish(let checker) = plan.language {
            resolved.locale = Locale(identifier: "en-US")
            // The check needs an installed multilingual model; without one the forced model runs unchecked.
            if let checker, let detected = try await identifyLanguage(of: input, modelID: checker),
               detected.language != "en", detected.probability >= Self.wrongModelWarningProbability {
                return LanguageDecision(
                    transcriber: FileTranscriber(options: resolved, store: store),
                    warning: "\(name): the speech sounds \(detected), but \(plan.modelID) transcribes English only; "
                        + "transcribe it with `openspeech transcribe \(name) --model \(checker)` (or `--locale "
                        + "\(detected.language)`).")
            }
            return LanguageDecision(transcriber: FileTranscriber(options: resolved, store: store))
        }
        let detected = try await identifyLanguage(of: input, modelID: plan.modelID)
        // No speech to hear: the transcription (of nothing) runs with the detection model in the given locale.
        if let detected { resolved.locale = detected.locale }
        resolved.modelID = plan.modelID(forDetected: detected?.language)
        return LanguageDecision(transcriber: FileTranscriber(options: resolved, store: store), detected: detected)
    }

    /// Samples as analyzer input, in buffers of 4 s.
    private static func inputs(_ samples: [Float]) -> AsyncStream<AnalyzerInput> {
        AsyncStream { continuation in
            for start in stride(from: 0, to: samples.count, by: 1 << 16) {
                let piece = Array(samples[start..<min(start + (1 << 16), samples.count)])
                continuation.yield(AnalyzerInput(buffer: MonoAudio.buffer(piece)))
            }
            continuation.finish()
        }
    }
}
