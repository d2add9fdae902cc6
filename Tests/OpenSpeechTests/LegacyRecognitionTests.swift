// The legacy SFSpeechRecognizer API on real recordings: the seeds' other examples (partial and final results,
// alternatives and segments, punctuation, contextual strings, delegates), long recordings, and a task's life
// (finish, cancel, a second task, audio after the end, errors).
import Foundation
@testable import OpenSpeech
import SpeechEngine
import SpeechEvaluation
import Synchronization
import Testing
import TestSupport

/// What a task delivered: results and errors in order, from the recognizer's queue.
final class LegacyResults: Sendable {
    private let state = Mutex<(results: [SFSpeechRecognitionResult], errors: [any Error], mainThread: Bool)>(([], [], true))

    init() { _ = Self.mainQueueKey }

    /// Marks the main dispatch queue, which (after `dispatchMain()`) may run on a thread other than the first.
    static let mainQueueKey: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()

    func add(_ result: SFSpeechRecognitionResult?, _ error: (any Error)?) {
        let main = DispatchQueue.getSpecific(key: Self.mainQueueKey) == true
        state.withLock {
            if let result { $0.results.append(result) }
            if let error { $0.errors.append(error) }
            $0.mainThread = $0.mainThread && main
        }
    }

    var results: [SFSpeechRecognitionResult] { state.withLock(\.results) }
    var errors: [any Error] { state.withLock(\.errors) }
    var onMainThread: Bool { state.withLock(\.mainThread) }
    var final: SFSpeechRecognitionResult? { results.last { $0.isFinal } }

    /// Waits until the task delivered a final result or an error (at most `seconds`).
    func wait(seconds: Double = 120) async throws {
        let deadline = Date().addingTimeInterval(seconds)
        while final == nil && errors.isEmpty {
            guard Date() < deadline else { throw TimeoutError() }
            try await Task.sleep(for: .milliseconds(20))
        }
        try await Task.sleep(for: .milliseconds(100)) // anything delivered after the end would show now
    }

    struct TimeoutError: Error {}
}

/// A clip's audio in its own format (rate and channels as recorded), in buffers of about 0.1 s, as a tap gives them.
func nativeBuffers(of url: URL) throws -> [AVAudioPCMBuffer] {
    let file = try AVAudioFile(forReading: url)
    var buffers: [AVAudioPCMBuffer] = []
    while true {
        let buffer = AVAudioPCMBuffer(pcmFormat: file.processingFormat,
                                      frameCapacity: AVAudioFrameCount(file.processingFormat.sampleRate / 10))!
        try file.read(into: buffer)
        if buffer.frameLength == 0 { return buffers }
        buffers.append(buffer)
    }
}

/// Records which delegate methods a task called, in order.
final class RecordingTaskDelegate: SFSpeechRecognitionTaskDelegate, Sendable {
    private let calls = Mutex<[String]>([])
    private let final = Mutex<SFSpeechRecognitionResult?>(nil)
    var log: [String] { calls.withLock { $0 } }
    var result: SFSpeechRecognitionResult? { final.withLock { $0 } }

    func speechRecognitionDidDetectSpeech(_ task: SFSpeechRecognitionTask) { calls.withLock { $0.append("speech") } }
    func speechRecognitionTask(_ task: SFSpeechRecognitionTask, didHypothesizeTranscription transcription: SFTranscription) {
        calls.withLock { if $0.last != "hypothesis" { $0.append("hypothesis") } }
    }
    func speechRecognitionTask(_ task: SFSpeechRecognitionTask, didFinishRecognition recognitionResult: SFSpeechRecognitionResult) {
        final.withLock { $0 = recognitionResult }
        calls.withLock { $0.append("result") }
    }
    func speechRecognitionTaskFinishedReadingAudio(_ task: SFSpeechRecognitionTask) { calls.withLock { $0.append("read") } }
    func speechRecognitionTaskWasCancelled(_ task: SFSpeechRecognitionTask) { calls.withLock { $0.append("cancelled") } }
    func speechRecognitionTask(_ task: SFSpeechRecognitionTask, didFinishSuccessfully successfully: Bool) {
        calls.withLock { $0.append("finished \(successfully)") }
    }
    func speechRecognitionTask(_ task: SFSpeechRecognitionTask, didProcessAudioDuration duration: TimeInterval) {
        calls.withLock { $0.append(String(format: "duration %.0f", duration)) }
    }
}

@Suite(.serialized) struct LegacyRecognitionTests {
    static let english = Locale(identifier: "en-US")

    static func recognizer() throws -> SFSpeechRecognizer {
        try #require(SFSpeechRecognizer(locale: english, store: TestModels.store))
    }

    /// The text of a clip's file through a URL request with partial results.
    static func fileText(_ clip: CorpusItem) async throws -> String {
        let results = LegacyResults()
        try recognizer().recognitionTask(with: SFSpeechURLRecognitionRequest(url: clip.originalURL)) { results.add($0, $1) }
        try await results.wait()
        return try #require(results.final, "\(results.errors)").bestTranscription.formattedString
    }

    static func score(_ text: String, _ clips: [CorpusItem]) -> Double {
        WordErrorRate.score(reference: clips.map(\.transcript).joined(separator: " "), hypothesis: text, language: "en").rate
    }

    @Test("a buffer request with partial results (seed 003): partial results grow, then one final result")
    func partialThenFinal() async throws {
        try await GatingAudio.ready()
        let clip = Corpus.item("jfk")! // 44.1 kHz stereo: appended as recorded, converted by the request
        let request = SFSpeechAudioBufferRecognitionRequest()
        request.shouldReportPartialResults = true // default is true
        let results = LegacyResults()
        let task = try Self.recognizer().recognitionTask(with: request) { result, error in results.add(result, error) }
        for buffer in try nativeBuffers(of: clip.originalURL) {
            request.append(buffer)
            try await Task.sleep(for: .milliseconds(5))
        }
        request.endAudio()
        try await results.wait()
        #expect(results.errors.isEmpty, "\(results.errors)")
        let partials = results.results.filter { !$0.isFinal }
        #expect(partials.count >= 2, "partial results: \(partials.count)")
        #expect(results.results.filter(\.isFinal).count == 1 && results.results.last?.isFinal == true)
        let final = try #require(results.final)
        #expect(Self.score(final.bestTranscription.formattedString, [clip]) < 0.15, "\(final.bestTranscription.formattedString)")
        #expect(task.state == .completed && task.error == nil)
        #expect(results.onMainThread, "results come on the recognizer's queue, the main queue")
    }

    @Test("alternatives and segments (seed 003): ranked transcriptions, words with times inside the audio and confidences")
    func alternativesAndSegments() async throws {
        try await GatingAudio.ready()
        let clip = TestEnvironment.clips("ls-clean")[1]
        let request = SFSpeechURLRecognitionRequest(url: clip.originalURL)
        request.addsPunctuation = true
        let results = LegacyResults()
        try Self.recognizer().recognitionTask(with: request) { result, error in
            guard let result else { return }
            results.add(result, error)
        }
        try await results.wait()
        let final = try #require(results.final)
        #expect(Self.score(final.bestTranscription.formattedString, [clip]) < 0.15)
        #expect(final.transcriptions.first === final.bestTranscription)
        let segments = final.bestTranscription.segments
        #expect(segments.count >= clip.transcript.split(separator: " ").count - 3)
        for (segment, next) in zip(segments, segments.dropFirst()) {
            #expect(segment.timestamp <= next.timestamp)
        }
        #expect(segments.allSatisfy { $0.timestamp >= 0 && $0.timestamp + $0.duration <= clip.durationSeconds + 0.5 })
        #expect(segments.allSatisfy { $0.confidence > 0 && $0.confidence <= 1 })
        #expect(final.bestTranscription.formattedString.contains { ".,?!".contains($0) }, "addsPunctuation keeps the marks")
        let metadata = try #require(final.speechRecognitionMetadata)
        #expect(metadata.speakingRate > 60 && metadata.speakingRate < 400, "\(metadata.speakingRate) words per minute")
        #expect(metadata.speechDuration > clip.durationSeconds / 2)
    }

    @Test("without addsPunctuation (Apple's default) the text has no sentence marks; contextual strings are accepted")
    func noPunctuationByDefault() async throws {
        try await GatingAudio.ready()
        let clip = TestEnvironment.clips("ls-clean")[1]
        let request = SFSpeechURLRecognitionRequest(url: clip.originalURL)
        request.contextualStrings = ["Hester Prynne", "Pearl"]
        #expect(request.addsPunctuation == false)
        let results = LegacyResults()
        try Self.recognizer().recognitionTask(with: request) { results.add($0, $1) }
        try await results.wait()
        let text = try #require(results.final).bestTranscription.formattedString
        #expect(!text.contains { ".,?!;".contains($0) }, "\(text)")
        #expect(Self.score(text, [clip]) < 0.15, "\(text)")
    }

    @Test("a task delegate is told of speech, the end of the audio, its duration and the result, in order")
    func delegate() async throws {
        try await GatingAudio.ready()
        let clip = TestEnvironment.clips("ls-clean")[0]
        let delegate = RecordingTaskDelegate()
        let task = try Self.recognizer().recognitionTask(with: SFSpeechURLRecognitionRequest(url: clip.originalURL),
                                                         delegate: delegate)
        let deadline = Date().addingTimeInterval(60)
        while !(delegate.log.last ?? "").hasPrefix("finished"), Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        let duration = String(format: "duration %.0f", clip.durationSeconds)
        // The file may be read to its end before the first speech is found (decoding is slower than reading).
        #expect(delegate.log == ["speech", "hypothesis", "read", duration, "result", "finished true"]
            || delegate.log == ["hypothesis", "speech", "read", duration, "result", "finished true"]
            || delegate.log == ["speech", "read", duration, "hypothesis", "result", "finished true"]
            || delegate.log == ["read", duration, "speech", "hypothesis", "result", "finished true"], "\(delegate.log)")
        #expect(Self.score(try #require(delegate.result).bestTranscription.formattedString, [clip]) < 0.15)
        #expect(task.state == .completed)
    }

    /// Five minutes: ten 30 s windows, past Apple's one-minute limit on server recognition. (It ran ten minutes until
    /// CI's time was cut: the long-form path beneath is `FileTranscriptionTests`'.)
    @Test("a recording of five minutes, from its file and as buffers: the whole text, the same words as FileTranscriber")
    func fiveMinutes() async throws {
        try await GatingAudio.ready()
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("legacy-five-minutes-\(UUID()).wav")
        defer { try? FileManager.default.removeItem(at: url) }
        var samples: [Float] = [], clips: [CorpusItem] = []
        let english = Corpus.items.filter { $0.language == "en" }
        for (index, clip) in english.enumerated() where samples.count < 300 * 16_000 {
            samples += [Float](repeating: 0, count: [8_000, 24_000, 48_000][index % 3]) + (try MonoAudio.load(contentsOf: clip.wav16kURL))
            clips.append(clip)
        }
        let file = try AVAudioFile(forWriting: url, settings: [AVSampleRateKey: 16_000.0])
        try file.write(from: MonoAudio.buffer(samples))
        try file.closeThrowing()
        // The legacy API transcribes in `SpeechTranscriber`'s compute type (float32); `FileTranscriber`'s default with
        // its detector is auto. Its final results carry alternatives, so English runs whisper-tiny.en (not Moonshine).
        let expected = try await FileTranscriber(options: .init(locale: Self.english, modelID: "whisper-tiny.en",
                                                                wordTimestamps: true, computeType: ComputeType.default),
                                                 store: TestModels.store).transcribe(contentsOf: url).text

        let fromFile = LegacyResults()
        let fileRequest = SFSpeechURLRecognitionRequest(url: url)
        fileRequest.addsPunctuation = true
        try Self.recognizer().recognitionTask(with: fileRequest) { fromFile.add($0, $1) }
        try await fromFile.wait(seconds: 600)

        let fromBuffers = LegacyResults()
        let bufferRequest = SFSpeechAudioBufferRecognitionRequest()
        bufferRequest.shouldReportPartialResults = false
        bufferRequest.addsPunctuation = true
        try Self.recognizer().recognitionTask(with: bufferRequest) { fromBuffers.add($0, $1) }
        for start in stride(from: 0, to: samples.count, by: 4_000) {
            bufferRequest.append(MonoAudio.buffer(Array(samples[start..<min(start + 4_000, samples.count)])))
        }
        bufferRequest.endAudio()
        try await fromBuffers.wait(seconds: 600)

        let normalizer = EnglishTextNormalizer()
        for results in [fromFile, fromBuffers] {
            let final = try #require(results.final, "\(results.errors)")
            let text = final.bestTranscription.formattedString
            #expect(normalizer.normalize(text) == normalizer.normalize(expected))
            #expect(Self.score(text, clips) < 0.15)
            #expect((final.bestTranscription.segments.last?.timestamp ?? 0) > Double(samples.count) / 16_000 - 30,
                    "words to the end of the recording")
        }
    }

    @Test("finish() mid-stream: the audio taken is recognized and the final result follows; audio after the end is ignored")
    func finishMidStream() async throws {
        try await GatingAudio.ready()
        let clip = TestEnvironment.clips("ls-clean")[1]
        let buffers = try TestEnvironment.buffers(of: clip.wav16kURL, seconds: 0.5)
        let request = SFSpeechAudioBufferRecognitionRequest()
        let results = LegacyResults()
        let task = try Self.recognizer().recognitionTask(with: request) { results.add($0, $1) }
        for buffer in buffers.prefix(buffers.count / 2) { request.append(buffer) }
        task.finish()
        #expect(task.isFinishing)
        for buffer in buffers.suffix(from: buffers.count / 2) { request.append(buffer) } // ignored
        try await results.wait()
        let text = try #require(results.final, "\(results.errors)").bestTranscription.formattedString
        let words = text.split(separator: " ").count
        #expect(words >= 5 && words < clip.transcript.split(separator: " ").count * 2 / 3, "\(text)")
        request.endAudio()
        request.append(buffers[0])
        try await Task.sleep(for: .milliseconds(200))
        #expect(results.results.filter(\.isFinal).count == 1 && results.errors.isEmpty)
        #expect(task.state == .completed)
    }

    @Test("cancel() mid-stream: one cancellation error, no final result; a second task at the same time completes")
    func cancelAndASecondTask() async throws {
        try await GatingAudio.ready()
        let clip = TestEnvironment.clips("ls-clean")[1]
        let recognizer = try Self.recognizer()
        let request = SFSpeechAudioBufferRecognitionRequest()
        let cancelled = LegacyResults()
        let task = recognizer.recognitionTask(with: request) { cancelled.add($0, $1) }
        let second = LegacyResults()
        recognizer.recognitionTask(with: SFSpeechURLRecognitionRequest(url: clip.originalURL)) { second.add($0, $1) }
        for buffer in try TestEnvironment.buffers(of: clip.wav16kURL, seconds: 0.5).prefix(10) { request.append(buffer) }
        try await Task.sleep(for: .milliseconds(300))
        task.cancel()
        #expect(task.isCancelled)
        try await cancelled.wait()
        #expect(cancelled.final == nil)
        #expect(cancelled.errors.count == 1)
        #expect((cancelled.errors.first as? SFSpeechError)?.code == .requestCanceled)
        #expect(task.state == .completed)
        task.cancel() // again: nothing
        task.finish()
        try await second.wait()
        #expect(Self.score(try #require(second.final, "\(second.errors)").bestTranscription.formattedString, [clip]) < 0.15)
    }

    @Test("a custom language model on the request: its terms reach recognition; one never prepared is a clear error")
    func customLanguageModel() async throws {
        try await GatingAudio.ready()
        let clip = try #require(Corpus.item("1221-135766-0002")) // "... affected Hester Prynne less with hope ..."
        func text(_ configuration: SFSpeechLanguageModel.Configuration?) async throws -> String {
            let request = SFSpeechURLRecognitionRequest(url: clip.originalURL)
            request.customizedLanguageModel = configuration
            let results = LegacyResults()
            try Self.recognizer().recognitionTask(with: request) { results.add($0, $1) }
            try await results.wait()
            if let error = results.errors.first { throw error }
            return try #require(results.final).bestTranscription.formattedString
        }
        let folder = try makeTemporaryDirectory("legacy-custom-lm")
        let data = SFCustomLanguageModelData(locale: Self.english, identifier: "com.example.scarlet", version: "1.0") {
            SFCustomLanguageModelData.CustomPronunciation(grapheme: "Hester Prynne", phonemes: ["h E s t @r p r I n"])
            SFCustomLanguageModelData.PhraseCount(phrase: "Hester Prynne", count: 10)
        }
        let exported = folder.appendingPathComponent("scarlet.bin")
        try await data.export(to: exported)
        let configuration = SFSpeechLanguageModel.Configuration(languageModel: folder.appendingPathComponent("scarlet.lm"))
        try await SFSpeechLanguageModel.prepareCustomLanguageModel(for: exported, clientIdentifier: "com.example",
                                                                  configuration: configuration)
        let without = try await text(nil), with = try await text(configuration)
        #expect(!without.contains("Prynne"), "the baseline already spells it: \(without)")
        #expect(with.contains("Hester Prynne"), "\(with)")

        let unprepared = SFSpeechLanguageModel.Configuration(languageModel: folder.appendingPathComponent("never.lm"))
        do {
            _ = try await text(unprepared)
            Issue.record("a model that was never prepared was accepted")
        } catch let error as SFSpeechError {
            #expect(error.code == .malformedSupplementalModel && error.message.contains("prepareCustomLanguageModel"), "\(error)")
        }
    }

    @Test("errors a person can act on: an unsupported locale, no model installed, an unreadable file, silence")
    func errors() async throws {
        try await GatingAudio.ready()
        #expect(SFSpeechRecognizer(locale: Locale(identifier: "tlh"), store: TestModels.store) == nil)
        #expect(SFSpeechRecognizer.authorizationStatus() == .authorized)
        #expect(SFSpeechRecognizer.supportedLocales().contains { $0.language.languageCode?.identifier == "en" })

        func failure(_ recognizer: SFSpeechRecognizer, _ request: SFSpeechRecognitionRequest) async throws -> SFSpeechError {
            let results = LegacyResults()
            recognizer.recognitionTask(with: request) { results.add($0, $1) }
            try await results.wait()
            #expect(results.final == nil)
            return try #require(results.errors.first as? SFSpeechError, "\(results.errors)")
        }
        let clip = TestEnvironment.clips("ls-clean")[0]

        let empty = ModelStore(home: FileManager.default.temporaryDirectory.appendingPathComponent("legacy-empty-\(UUID())"),
                               catalog: ModelCatalog.builtIn)
        let noModel = try await failure(try #require(SFSpeechRecognizer(locale: Self.english, store: empty)),
                                        SFSpeechURLRecognitionRequest(url: clip.originalURL))
        #expect(noModel.code == .noModel && noModel.message.contains("openspeech models install"), "\(noModel)")

        let missing = try await failure(try Self.recognizer(), SFSpeechURLRecognitionRequest(url: URL(fileURLWithPath: "/nonexistent.wav")))
        #expect(missing.code == .audioReadFailed && missing.message.contains("/nonexistent.wav"), "\(missing)")

        let silence = SFSpeechAudioBufferRecognitionRequest()
        silence.append(MonoAudio.buffer([Float](repeating: 0, count: 48_000)))
        silence.endAudio()
        #expect(try await failure(try Self.recognizer(), silence).code == .noSpeechDetected)
    }
}
