import SpeechAudio
import SpeechEngine

/// Final-only results: the audio goes into one `FinalOnlyTranscription` (a long-form stream of all of it, or of the
/// speech a detector beside the transcriber found), whose segments become final results as their windows are
/// decoded. A skip in the timeline ends the stream; the next audio starts another, prompted with the text so far.
final class FinalOnlyStrategy: TranscriptionStrategy {
    private let session: any LongFormDecoder
    private let settings: TranscriptionProcessor.Settings
    private let prompt: ContextPrompt
    private var results: TranscriptionResultBuilder
    private let output: (SpeechTranscriber.Result) -> Void
    var speechRegions: SpeechRegionLog?
    /// The stream of the stretch of audio now running (nil: none yet, or the audio skipped).
    private var stream: FinalOnlyTranscription?
    /// Final text so far (its tail): the model's prompt for what follows.
    private var promptText: String
    private(set) var finalThrough: Int64 = 0
    /// Samples the streams ended by a skip gave the engine.
    private var samplesOfEndedStreams = 0

    init(session: any LongFormDecoder, settings: TranscriptionProcessor.Settings, prompt: ContextPrompt,
         speechRegions: SpeechRegionLog?, output: @escaping (SpeechTranscriber.Result) -> Void) {
        self.session = session
        self.settings = settings
        self.prompt = prompt
        self.speechRegions = speechRegions
        self.output = output
        results = TranscriptionResultBuilder(settings: settings)
        promptText = settings.initialPromptText
    }

    func append(_ samples: [Float], at start: Int64) throws {
        let stream = self.stream ?? started(at: start)
        emit(try stream.append(samples))
    }

    func finalize(through end: Int64) throws {
        guard let stream else { return }
        emit(try stream.finish(at: end))
        try stream.resume(prompt: prompt.tokens(after: promptText))
    }

    func skip(to start: Int64) {
        samplesOfEndedStreams += stream?.samplesTranscribed ?? 0
        stream = nil
    }

    /// Samples given to the engine (with a detector, only its speech).
    var samplesTranscribed: Int { samplesOfEndedStreams + (stream?.samplesTranscribed ?? 0) }

    func cancel(before start: Int64) {
        guard let stream else { return }
        stream.cancel(before: start)
        // The samples kept were appended once already: they are finite, and the new stream takes them.
        try? stream.resume(prompt: prompt.tokens(after: promptText))
    }

    /// A stream from timeline sample `start`, following the detector's regions as they are now.
    private func started(at start: Int64) -> FinalOnlyTranscription {
        let options = settings.engineOptions(phrases: prompt.phrases, engine: session)
        let stream = FinalOnlyTranscription(session: session, options: options, start: start, regions: speechRegions,
                                            prompt: prompt.tokens(after: promptText))
        self.stream = stream
        return stream
    }

    private func emit(_ segments: [Segment]) {
        for segment in segments {
            let language = settings.detectsLanguage ? segment.language ?? stream?.language : nil
            guard let (result, text) = results.final(segment, language: language) else { continue }
            output(result)
            finalThrough = max(finalThrough, Int64((segment.end * TranscriptionProcessor.rate).rounded()))
            promptText = (promptText + text).suffix(2_000).description
        }
    }
}
