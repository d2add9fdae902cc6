import Foundation
import SpeechAssets
import SpeechAudio
import Synchronization

/// One legacy recognition task's work: a `SpeechAnalyzer` with a `SpeechTranscriber` and a `SpeechDetector` over the
/// request's audio, its results assembled into `SFSpeechRecognitionResult`s.
///
/// A file, or buffers without partial results, go through final-only transcription (the seek-based long-form loop
/// of `openspeech transcribe`: the same words); buffers with partial results through volatile transcription, whose
/// partial results follow the speech as it comes.
struct LegacyRecognition: Sendable {
    enum Event: Sendable {
        /// The first audio arrived.
        case audioStarted
        /// The detector heard speech for the first time.
        case speechDetected
        /// The text so far.
        case partial(SFSpeechRecognitionResult)
        /// All the audio was taken: its duration in seconds.
        case audioEnded(TimeInterval)
    }

    let locale: Locale
    let source: LegacyAudioSource
    let partialResults: Bool
    let punctuation: Bool
    let contextualStrings: [String]
    /// A prepared custom language model, whose terms and phrases join the contextual strings.
    let customLanguageModel: SFSpeechLanguageModel.Configuration?
    let store: ModelStore
    /// Set by `stopTakingAudio()`: no more audio is read.
    private let stopped = StopFlag()

    init(locale: Locale, source: LegacyAudioSource, partialResults: Bool, punctuation: Bool,
         contextualStrings: [String], customLanguageModel: SFSpeechLanguageModel.Configuration?, store: ModelStore) {
        self.locale = locale
        self.source = source
        self.partialResults = partialResults
        self.punctuation = punctuation
        self.contextualStrings = contextualStrings
        self.customLanguageModel = customLanguageModel
        self.store = store
    }

    /// Stops taking audio: the audio taken is still recognized.
    func stopTakingAudio() {
        stopped.set()
        if case .buffers(let channel) = source { channel.end() }
    }

    /// Recognizes the audio, reporting progress; returns the final result. Throws `.noSpeechDetected` when no words
    /// were heard, the analyzer's errors (`.noModel`...), `.audioReadFailed` for audio that cannot be read,
    /// `.malformedSupplementalModel` for a custom language model that was not prepared, and `CancellationError` when
    /// the task is cancelled.
    func run(report: @escaping @Sendable (Event) -> Void) async throws -> SFSpeechRecognitionResult {
        var volatile = false
        if case .buffers = source { volatile = partialResults }
        let transcriber = SpeechTranscriber(
            locale: locale, transcriptionOptions: [],
            reportingOptions: volatile ? [.volatileResults] : [.alternativeTranscriptions],
            attributeOptions: [.audioTimeRange, .transcriptionConfidence], engineConfiguration: .init(),
            modelStore: store)
        let detector = SpeechDetector(detectionOptions: .init(sensitivityLevel: .medium), reportResults: true,
                                      modelStore: store)
        let analyzer = SpeechAnalyzer(modules: [transcriber, detector],
                                      options: .init(priority: .userInitiated, modelRetention: .processLifetime))
        let vocabulary = try customLanguageModel.map { try CustomLanguageModelVocabulary.contextualStrings(for: $0) } ?? []
        if !contextualStrings.isEmpty || !vocabulary.isEmpty {
            let context = AnalysisContext()
            context.contextualStrings[.general] = contextualStrings
            context.contextualStrings[.customLanguageModel] = vocabulary
            try await analyzer.setContext(context)
        }
        let (partialResults, punctuation) = (self.partialResults, self.punctuation)
        let collector = Task {
            var assembly = LegacyTranscriptAssembly(punctuation: punctuation)
            for try await result in transcriber.results {
                assembly.add(result)
                if partialResults, !assembly.isEmpty {
                    report(.partial(SFSpeechRecognitionResult(transcriptions: assembly.transcriptions(final: false),
                                                              isFinal: false, speechRecognitionMetadata: nil)))
                }
            }
            return assembly
        }
        let listener = Task {
            var heard = false // the stream is drained to its end, so nothing piles up in it
            for try await result in detector.results where result.speechDetected && !heard {
                heard = true
                report(.speechDetected)
            }
        }
        defer { listener.cancel() }
        let (inputs, builder) = AsyncThrowingStream.makeStream(of: AnalyzerInput.self)
        let feeder = Task { [source, stopped] in
            do {
                try await Self.feed(source, stopped: stopped, into: builder, report: report)
                builder.finish()
            } catch {
                builder.finish(throwing: error)
            }
        }
        do {
            try await withTaskCancellationHandler {
                let end = try await analyzer.analyzeSequence(inputs)
                report(.audioEnded(end?.seconds ?? 0))
                try await analyzer.finalizeAndFinishThroughEndOfInput()
            } onCancel: {
                stopTakingAudio()
                feeder.cancel()
                analyzer.cancelAndFinishNow()
            }
        } catch {
            collector.cancel()
            analyzer.cancelAndFinishNow()
            throw error
        }
        let assembly = try await collector.value
        guard !assembly.isEmpty else {
            throw SFSpeechError(.noSpeechDetected, "No speech was detected in the audio.")
        }
        let transcriptions = assembly.transcriptions(final: true)
        return SFSpeechRecognitionResult(
            transcriptions: transcriptions, isFinal: true,
            speechRecognitionMetadata: SFSpeechRecognitionMetadata(segments: transcriptions[0].segments))
    }

    /// Reads the source into analyzer input, 16 kHz mono, until it ends or `stopped` is set.
    private static func feed(_ source: LegacyAudioSource, stopped: StopFlag,
                             into builder: AsyncThrowingStream<AnalyzerInput, any Error>.Continuation,
                             report: @Sendable (Event) -> Void) async throws {
        var started = false
        func send(_ samples: [Float]) {
            guard !samples.isEmpty else { return }
            if !started {
                started = true
                report(.audioStarted)
            }
            builder.yield(AnalyzerInput(buffer: MonoAudio.buffer(samples)))
        }
        switch source {
        case .file(let url):
            let reader: MonoAudioReader
            do {
                reader = try MonoAudioReader(url: url, toleratingTruncation: true)
                while !stopped.isSet {
                    let samples = try reader.read()
                    if samples.isEmpty { break }
                    send(samples)
                    await Task.yield()
                }
            } catch let error as AudioError {
                throw SFSpeechError(.audioReadFailed, error.description)
            }
        case .buffers(let channel):
            var converter: MonoStreamConverter?
            do {
                for await buffer in channel.buffers {
                    if converter?.inputFormat != buffer.format {
                        if let tail = converter?.finish() { send(tail) }
                        converter = try MonoStreamConverter(inputFormat: buffer.format)
                    }
                    send(try converter!.convert(buffer))
                }
                if let tail = converter?.finish() { send(tail) }
            } catch let error as AudioError {
                throw SFSpeechError(.audioReadFailed, "An appended buffer cannot be recognized: \(error.description)")
            }
        }
    }
}

/// A flag set once, from any thread.
final class StopFlag: Sendable {
    private let flag = Atomic(false)
    var isSet: Bool { flag.load(ordering: .acquiring) }
    func set() { flag.store(true, ordering: .releasing) }
}
