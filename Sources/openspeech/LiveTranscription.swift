import Foundation
import OpenSpeech

/// Live audio through `SpeechAnalyzer` with a volatile `SpeechTranscriber` (word times) and the `SpeechDetector`,
/// results written as they come; with speakers, a `SpeakerDetector` beside them labels who speaks. Shared by `listen`
/// and `transcribe -`.
struct LiveTranscription {
    let transcriber: SpeechTranscriber
    let detector: SpeechDetector
    let speakers: SpeakerDetector?
    let analyzer: SpeechAnalyzer
    let locale: Locale
    let modelID: String?
    let computeType: ComputeType
    /// No language given: the multilingual model detects it in the first speech and keeps it.
    let detectsLanguage: Bool

    /// `requested` nil (no --locale): the language is detected in the first speech (about 2 s of it), then kept.
    /// `threads` nil: the engine's default. `speakers`: label who speaks, with these options.
    init(locale requested: Locale?, modelID: String?, computeType: ComputeType, threads: Int? = nil,
         speakers: SpeakerDetector.Options? = nil) throws {
        detectsLanguage = requested == nil
        let wanted = requested ?? Locale(identifier: "en-US")
        guard let locale = SpeechTranscriber.supportedLocale(equivalentTo: wanted) else {
            throw CommandFailure("no model transcribes \(wanted.identifier); see `openspeech models list`.")
        }
        self.locale = locale
        self.modelID = modelID
        self.computeType = computeType
        transcriber = SpeechTranscriber(
            locale: locale, transcriptionOptions: [], reportingOptions: [.volatileResults],
            attributeOptions: [.audioTimeRange],
            engineConfiguration: .init(modelID: modelID, computeType: computeType, detectsLanguage: detectsLanguage,
                                       threads: threads))
        detector = SpeechDetector(detectionOptions: .init(sensitivityLevel: .medium), reportResults: false)
        self.speakers = speakers.map { SpeakerDetector(options: $0) }
        analyzer = SpeechAnalyzer(modules: [transcriber, detector] + (self.speakers.map { [$0] } ?? []))
    }

    /// The format the input must be in.
    func audioFormat() async throws -> AVAudioFormat {
        guard let format = await SpeechAnalyzer.bestAvailableAudioFormat(compatibleWith: [transcriber]) else {
            throw CommandFailure("the transcriber accepts no audio format.")
        }
        return format
    }

    /// The models this transcription needs, as the file workflow resolves them.
    private var files: FileTranscriber {
        FileTranscriber(options: .init(locale: locale, modelID: modelID, detectsSpeech: true, computeType: computeType,
                                       detectsLanguage: detectsLanguage))
    }

    /// The model that transcribes (the one that detects, when the language is detected) and its compute type, as the
    /// listening line names them.
    var modelDescription: String {
        let id = transcriber.selectedModelID ?? "?"
        return ModelStore().computeTypeApplies(to: id) ? "\(id), compute type \(computeType.resolved)" : id
    }

    /// Installs missing models, each named (or fails under `noDownload` when the transcriber's is missing), then loads
    /// them, with `contextualStrings` (words to favour) as the analysis context.
    func prepare(noDownload: Bool, progress: ProgressLine, contextualStrings: [String]) async throws {
        try await ModelInstallation.install(files, noDownload: noDownload, progress: progress)
        if let speakers, !noDownload {
            let store = ModelStore()
            defer { progress.clear() }
            for id in speakers.assetModelIDs where store.installedDirectory(for: id) == nil {
                try await store.install(id) { done, total in
                    progress.show("installing \(id) (\(formatBytes(total)))", total > 0 ? Double(done) / Double(total) : 0)
                }
            }
        }
        if !contextualStrings.isEmpty {
            let context = AnalysisContext()
            context.contextualStrings[.general] = contextualStrings
            try await analyzer.setContext(context)
        }
        try await analyzer.prepareToAnalyze(in: try await audioFormat())
    }

    /// Analyzes `input` until it ends, writing each result to `output` (with its speakers, when labelled); then
    /// finalizes what was heard, writes the last finals and returns the final results and the speakers' turns (none
    /// without speakers).
    @discardableResult
    func run<Input: AsyncSequence & Sendable>(_ input: Input, output: LiveOutput?, quiet: Bool = false)
        async throws -> (finals: [SpeechTranscriber.Result], turns: [SpeakerTurn]) where Input.Element == AnalyzerInput {
        nonisolated(unsafe) let output = output  // used by the printing task alone until it ends
        let labels = speakers.map { _ in LiveSpeakers() }
        let following = speakers.map { speakers in Task { try await labels?.follow(speakers) } }
        let language = locale.language.languageCode?.identifier ?? ""
        let printing = Task {
            var finals: [SpeechTranscriber.Result] = []
            var announced = !detectsLanguage || quiet
            for try await result in transcriber.results {
                if !announced, let language = Transcript.Segment(result).language {
                    announced = true
                    let name = Locale(identifier: "en").localizedString(forLanguageCode: language) ?? language
                    FileHandle.standardError.write(Data("openspeech: detected \(name) (\(language))\n".utf8))
                }
                try output?.show(result, speakers: await labels?.segments(of: result, language: language))
                if result.isFinal { finals.append(result) }
            }
            output?.finish()
            return finals
        }
        do {
            _ = try await analyzer.analyzeSequence(input)
            try await analyzer.finalizeAndFinishThroughEndOfInput()
        } catch {
            printing.cancel()
            following?.cancel()
            throw error
        }
        let finals = try await printing.value
        try await following?.value
        return (finals, await labels?.turns ?? [])
    }
}
