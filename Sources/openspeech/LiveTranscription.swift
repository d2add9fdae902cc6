import Foundation
import OpenSpeech

/// Live audio through `SpeechAnalyzer` with a volatile `SpeechTranscriber` (word times) and the `SpeechDetector`,
/// results written as they come. Shared by `listen` and `transcribe -`.
struct LiveTranscription {
    let transcriber: SpeechTranscriber
    let detector: SpeechDetector
    let analyzer: SpeechAnalyzer
    let locale: Locale
    let modelID: String?
    let computeType: ComputeType

    init(locale requested: Locale?, modelID: String?, computeType: ComputeType) throws {
        let wanted = requested
            ?? (Locale.current.language.languageCode == nil ? Locale(identifier: "en-US") : Locale.current)
        guard let locale = SpeechTranscriber.supportedLocale(equivalentTo: wanted) else {
            throw CommandFailure("no model transcribes \(wanted.identifier); see `openspeech models list`.")
        }
        self.locale = locale
        self.modelID = modelID
        self.computeType = computeType
        transcriber = SpeechTranscriber(
            locale: locale, transcriptionOptions: [], reportingOptions: [.volatileResults],
            attributeOptions: [.audioTimeRange], engineConfiguration: .init(modelID: modelID, computeType: computeType))
        detector = SpeechDetector(detectionOptions: .init(sensitivityLevel: .medium), reportResults: false)
        analyzer = SpeechAnalyzer(modules: [transcriber, detector])
    }

    /// The format the input must be in.
    func audioFormat() async throws -> AVAudioFormat {
        guard let format = await SpeechAnalyzer.bestAvailableAudioFormat(compatibleWith: [transcriber]) else {
            throw CommandFailure("the transcriber accepts no audio format.")
        }
        return format
    }

    /// Installs missing models (or fails under `noDownload` when the transcriber's is missing), then loads them, with
    /// `contextualStrings` (words to favour) as the analysis context.
    func prepare(noDownload: Bool, progress: ProgressLine, contextualStrings: [String]) async throws {
        let files = FileTranscriber(options: .init(locale: locale, modelID: modelID, detectsSpeech: true, computeType: computeType))
        let missing = try files.missingModelIDs()
        if !missing.isEmpty {
            let needed = try files.requiredModelIDs()[0]
            if noDownload {
                if missing.contains(needed) {
                    throw CommandFailure("\(needed) is not installed and --no-download was given; install it with `openspeech models install \(needed)`.")
                }
            } else {
                try await files.installModels { event in
                    if case .installing(let fraction) = event { progress.show("installing models", fraction) }
                }
                progress.clear()
            }
        }
        if !contextualStrings.isEmpty {
            let context = AnalysisContext()
            context.contextualStrings[.general] = contextualStrings
            try await analyzer.setContext(context)
        }
        try await analyzer.prepareToAnalyze(in: try await audioFormat())
    }

    /// Analyzes `input` until it ends, writing each result to `output`; then finalizes what was heard, writes the
    /// last finals and returns the final results.
    @discardableResult
    func run<Input: AsyncSequence & Sendable>(_ input: Input, output: LiveOutput?) async throws -> [SpeechTranscriber.Result]
    where Input.Element == AnalyzerInput {
        nonisolated(unsafe) let output = output  // used by the printing task alone until it ends
        let printing = Task {
            var finals: [SpeechTranscriber.Result] = []
            for try await result in transcriber.results {
                try output?.show(result)
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
            throw error
        }
        return try await printing.value
    }
}
