import Foundation
import Logging
import OpenSpeech
import SpeechAudio
import SpeechEngine
import Synchronization

/// One Realtime transcription session (one WebSocket): takes client events, keeps the uncommitted audio as 16 kHz
/// samples, runs server VAD over it, and transcribes each committed item with the library's `FileTranscriber`, in
/// order, one at a time, within the server's concurrency limit. Server events go to `output` as JSON text.
///
/// The audio is converted as one stream (`MonoStreamConverter`) and turns are decided on 16 kHz sample positions, so
/// the items, and so their text, depend on the audio and the commits alone, not on how the client cut its appends.
/// An item's text is the file transcription of its audio: `completed` carries it. With server VAD, the words a
/// volatile transcription commits while the item's speech is still arriving go out as `delta` events before the
/// commit (`VolatileItemTranscription`); the file transcription's text then extends them (`TranscriptDeltas`).
actor RealtimeTranscriptionSession {
    /// The most uncommitted audio a session keeps (10 minutes); appends beyond it are refused with an error event.
    static let maxBufferSamples = 10 * 60 * 16_000
    /// The least audio a commit takes, as OpenAI's (100 ms).
    static let minCommitSamples = 1_600
    /// Committed items of one session waiting for or in transcription; one more fails at once.
    static let maxPendingItems = 4
    /// Messages refused in a row before the session ends.
    static let maxRejectedInARow = 64

    let id = RealtimeServerEvent.newID("sess")
    private let executor = EngineExecutor(label: "openspeech.realtime")
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    private let configuration: ServerConfiguration
    private let limiter: ConcurrencyLimiter
    private let metrics: ServerMetrics
    private let logger: Logger
    private let output: RealtimeOutbox

    private var settings: RealtimeSessionSettings
    private var decoder: InputAudioDecoder
    private var converter: MonoStreamConverter
    /// `input_audio_noise_reduction`'s filter, on the 16 kHz audio before everything else.
    private var noiseFilter: HighPassFilter?
    /// The uncommitted audio, 16 kHz; its first sample is sample `bufferStart` of the session.
    private var buffer: [Float] = []
    private var bufferStart: Int64 = 0
    private var streamEnd: Int64 { bufferStart + Int64(buffer.count) }

    /// Server VAD: the detector, the policy, and where the detector's chunks start on the timeline.
    private var detector: (any VoiceActivityDetector)?
    private var turns: RealtimeTurnDetection?
    private var detectorOrigin: Int64 = 0
    private var detectorChunks: Int64 = 0
    /// With `diarize`: who speaks, labelled as the audio arrives, and the stretches labelled since the buffer's start.
    private var speakers: LiveSpeakerLabelling?
    private var speakerStretches: [LiveSpeakerLabelling.Stretch] = []
    /// The item that speech in progress will be committed as.
    private var speechItemID: String?
    /// Its deltas, and its volatile transcription, fed through `volatileFedThrough`.
    private var speechDeltas: ItemDeltaStream?
    private var volatile: VolatileItemTranscription?
    private var volatileFedThrough: Int64 = 0
    private var previousItemID: String?
    /// Messages refused since the last one taken.
    private var rejectedInARow = 0

    /// The last item's transcription (each waits for the one before), and all of them, to cancel on close.
    private var lastTranscription: ItemTranscription?
    private var transcriptions: [ItemTranscription] = []

    init(configuration: ServerConfiguration, limiter: ConcurrencyLimiter, metrics: ServerMetrics, logger: Logger,
         output: RealtimeOutbox) throws {
        self.configuration = configuration
        self.limiter = limiter
        self.metrics = metrics
        self.logger = logger
        self.output = output
        let settings = try RealtimeSessionSettings(configuration: configuration)
        self.settings = settings
        decoder = InputAudioDecoder(format: settings.inputAudioFormat)
        converter = try Self.makeConverter(settings.inputAudioFormat)
        if let detection = settings.turnDetection {
            detector = Self.makeDetector(configuration)
            turns = RealtimeTurnDetection(detection)
        }
        noiseFilter = settings.noiseReduction.map { HighPassFilter(cutoffHertz: $0.cutoffHertz) }
    }

    /// Sends `transcription_session.created`.
    func start() {
        send(.sessionCreated(session: settings.sessionObject(id: id)))
    }

    /// Handles one text message from the client. Returns false when the session must end: `maxRejectedInARow`
    /// messages in a row were refused (a client that only sends what the server cannot take is cut off, its last
    /// error event saying so; one good message resets the count).
    func receive(_ text: String) -> Bool {
        switch RealtimeClientEvent.decode(text) {
        case .failure(let error):
            return rejected(error)
        case .success(let received):
            do {
                try handle(received.event)
                rejectedInARow = 0
                return true
            } catch {
                return rejected(error.about(received.eventID))
            }
        }
    }

    /// A binary message: not part of the protocol.
    func receiveBinary() -> Bool {
        rejected(RealtimeEventError(code: "invalid_message", "Binary messages are not events: send JSON text, "
                                    + "the audio base64-encoded in `input_audio_buffer.append`."))
    }

    /// Sends the error event of a refused message; false once `maxRejectedInARow` were refused in a row.
    private func rejected(_ error: RealtimeEventError) -> Bool {
        send(.error(error))
        rejectedInARow += 1
        guard rejectedInARow >= Self.maxRejectedInARow else { return true }
        send(.error(RealtimeEventError(code: "too_many_errors", "\(Self.maxRejectedInARow) messages in a row were "
                                       + "refused: the session ends. Fix the messages the error events name.")))
        return false
    }

    /// The connection closed: stops the transcriptions in progress and ends the output.
    func close() {
        stopVolatile()
        for task in transcriptions { task.cancel() }
        transcriptions.removeAll()
        output.finish()
    }

    private func handle(_ event: RealtimeClientEvent) throws(RealtimeEventError) {
        switch event {
        case .updateSession(let update):
            try apply(update)
        case .appendAudio(let bytes):
            try append(bytes)
        case .commit:
            try commitAll()
        case .clear:
            buffer.removeAll()
            bufferStart = streamEnd
            turns?.reset()
            speechItemID = nil
            stopVolatile()
            speechDeltas = nil
            send(.cleared)
        }
    }

    private func apply(_ update: RealtimeSessionUpdate) throws(RealtimeEventError) {
        let next = try settings.applying(update, configuration: configuration)
        if next.inputAudioFormat != settings.inputAudioFormat {
            // The old format's audio so far stays in the buffer; what follows is read in the new one.
            feed(converter.finish())
            do {
                converter = try Self.makeConverter(next.inputAudioFormat)
            } catch {
                throw RealtimeEventError(code: "invalid_value", "The server cannot read \(next.inputAudioFormat.rawValue).",
                                         param: "session.input_audio_format")
            }
            decoder = InputAudioDecoder(format: next.inputAudioFormat)
        }
        if let detection = next.turnDetection {
            if detector == nil {
                detector = Self.makeDetector(configuration)
                detectorOrigin = streamEnd
                detectorChunks = 0
            }
            var policy = RealtimeTurnDetection(detection)
            if turns?.isSpeaking == true {
                // Speech in progress stays in progress under the new settings.
                _ = policy.observe(1, chunkEnd: detectorOrigin + detectorChunks * RealtimeTurnDetection.chunkLength,
                                   bufferStart: bufferStart)
            }
            turns = policy
        } else {
            detector = nil
            turns = nil
            speechItemID = nil
            stopVolatile()
            speechDeltas = nil
        }
        if next.noiseReduction != settings.noiseReduction {
            noiseFilter = next.noiseReduction.map { HighPassFilter(cutoffHertz: $0.cutoffHertz) }
        }
        if next.diarize, speakers == nil {
            do {
                speakers = try LiveSpeakerLabelling.installed(in: configuration.store)
            } catch {
                // As the REST routes' refusal (`APIError.diarizationModelMissing`); a session never installs it.
                let id = SpeakerDiarizer.embeddingModelID
                throw RealtimeEventError(code: "model_not_installed", "Telling speakers apart needs the model `\(id)`, "
                                         + "which is not installed on this server; install it with "
                                         + "`openspeech models install \(id)`.",
                                         param: "session.input_audio_transcription.diarize")
            }
        } else if !next.diarize {
            speakers = nil
            speakerStretches = []
        }
        settings = next
        send(.sessionUpdated(session: settings.sessionObject(id: id)))
    }

    private func append(_ bytes: Data) throws(RealtimeEventError) {
        let samples = decoder.decode(bytes)
        guard !samples.isEmpty else { return }
        metrics.realtimeAudio(seconds: Double(samples.count) / settings.inputAudioFormat.sampleRate)
        guard buffer.count + samples.count * 16_000 / Int(settings.inputAudioFormat.sampleRate) <= Self.maxBufferSamples else {
            throw RealtimeEventError(code: "input_audio_buffer_full", "The input audio buffer holds 10 minutes of audio "
                                     + "already: commit it (or turn on server VAD) before appending more.")
        }
        let format = AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: settings.inputAudioFormat.sampleRate,
                                   channels: 1, interleaved: true)!
        let pcm = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: AVAudioFrameCount(samples.count))!
        samples.withUnsafeBufferPointer { pcm.int16ChannelData![0].update(from: $0.baseAddress!, count: $0.count) }
        pcm.frameLength = AVAudioFrameCount(samples.count)
        do {
            feed(try converter.convert(pcm))
        } catch {
            throw RealtimeEventError(code: "invalid_audio", "The audio could not be converted: \(error)", type: "server_error")
        }
    }

    /// Adds 16 kHz samples to the buffer and runs server VAD over them.
    private func feed(_ samples: [Float]) {
        guard !samples.isEmpty else { return }
        var samples = samples
        noiseFilter?.process(&samples)
        if let speakers { speakerStretches += speakers.append(samples, at: streamEnd) }
        buffer += samples
        guard let detector, var policy = turns else { return }
        let probabilities = detector.process(samples)
        for probability in probabilities {
            detectorChunks += 1
            let chunkEnd = detectorOrigin + detectorChunks * RealtimeTurnDetection.chunkLength
            switch policy.observe(probability, chunkEnd: chunkEnd, bufferStart: bufferStart) {
            case nil:
                break
            case .speechStarted(_, let audioStart):
                // The item's audio starts at the prefix padding before the speech.
                drop(before: audioStart)
                let itemID = RealtimeServerEvent.newID("item")
                speechItemID = itemID
                send(.speechStarted(itemID: itemID, audioStartMilliseconds: Self.milliseconds(audioStart)))
                startVolatile(itemID: itemID)
            case .speechStopped(let speechEnd, let commitThrough):
                let itemID = speechItemID ?? RealtimeServerEvent.newID("item")
                speechItemID = nil
                stopVolatile()
                let deltas = speechDeltas
                speechDeltas = nil
                send(.speechStopped(itemID: itemID, audioEndMilliseconds: Self.milliseconds(speechEnd)))
                let count = Int(commitThrough - bufferStart)
                let item = Array(buffer[..<count])
                let speaker = speaker(of: bufferStart..<commitThrough)
                buffer.removeFirst(count)
                bufferStart = commitThrough
                commit(item, itemID: itemID, deltas: deltas, speaker: speaker)
            }
        }
        turns = policy
        if let volatile, streamEnd > volatileFedThrough {
            volatile.append(Array(buffer[Int(volatileFedThrough - bufferStart)...]))
            volatileFedThrough = streamEnd
        }
        if !policy.isSpeaking {
            // Silence between turns is not kept beyond what the next turn's prefix padding (and a second) needs.
            let keep = Int64(settings.turnDetection?.prefixPaddingMilliseconds ?? 0) * 16 + 16_000
            let analyzed = detectorOrigin + detectorChunks * RealtimeTurnDetection.chunkLength
            if analyzed - keep > bufferStart + 16_000 { drop(before: analyzed - keep) }
        }
    }

    /// Who speaks most in `range` of the session's audio, as labelled so far ("Speaker 1"...); nil without `diarize`
    /// or speech labelled in or near it.
    private func speaker(of range: Range<Int64>) -> String? {
        guard speakers != nil else { return nil }
        let turns = speakerStretches.compactMap { stretch in
            stretch.speaker.map { SpeechEngine.SpeakerTurn(start: Double(stretch.range.lowerBound) / 16_000,
                                              end: Double(stretch.range.upperBound) / 16_000, speaker: $0) }
        }
        // The next item starts where this one ends: earlier labels are no longer needed.
        speakerStretches.removeAll { $0.range.upperBound <= range.upperBound - 16_000 }
        return SpeakerAttribution.speaker(start: Double(range.lowerBound) / 16_000, end: Double(range.upperBound) / 16_000,
                                          turns: turns).map(OpenSpeech.SpeakerTurn.label)
    }

    private func drop(before sample: Int64) {
        let count = Int(min(max(0, sample - bufferStart), Int64(buffer.count)))
        guard count > 0 else { return }
        // Labels more than a second before the audio kept are not needed for any item.
        speakerStretches.removeAll { $0.range.upperBound <= sample - 16_000 }
        buffer.removeFirst(count)
        bufferStart += Int64(count)
    }

    /// `input_audio_buffer.commit`: everything appended so far becomes an item.
    private func commitAll() throws(RealtimeEventError) {
        feed(converter.finish())
        do {
            converter = try Self.makeConverter(settings.inputAudioFormat)
        } catch {
            throw RealtimeEventError(code: "invalid_audio", "The audio converter could not restart.", type: "server_error")
        }
        guard buffer.count >= Self.minCommitSamples else {
            throw RealtimeEventError(code: "input_audio_buffer_commit_empty", "Error committing input audio buffer: "
                                     + "buffer too small. Expected at least 100 ms of audio, but buffer only has "
                                     + "\(buffer.count / 16) ms of audio.")
        }
        let itemID = speechItemID ?? RealtimeServerEvent.newID("item")
        speechItemID = nil
        stopVolatile()
        let deltas = speechDeltas
        speechDeltas = nil
        turns?.reset()
        let item = buffer
        let speaker = speaker(of: bufferStart..<streamEnd)
        buffer.removeAll()
        bufferStart = streamEnd
        commit(item, itemID: itemID, deltas: deltas, speaker: speaker)
    }

    /// Speech of item `itemID` began: its volatile transcription starts on the buffer (the item's audio so far).
    private func startVolatile(itemID: String) {
        stopVolatile()
        let deltas = ItemDeltaStream(itemID: itemID, output: output)
        speechDeltas = deltas
        volatile = VolatileItemTranscription(settings: settings, configuration: configuration, limiter: limiter,
                                             audio: buffer, deltas: deltas)
        volatileFedThrough = streamEnd
    }

    /// Ends the volatile transcription of the speech in progress, if any; its late results are ignored.
    private func stopVolatile() {
        speechDeltas?.endVolatile()
        volatile?.stop()
        volatile = nil
    }

    /// Announces the item and queues its transcription after the items before it. The item takes a place in the
    /// server's queue now (waiting behind its session's items counts as waiting); with none free, or with
    /// `maxPendingItems` of this session's items already waiting, it fails at once (`queue_full`), as an HTTP request
    /// gets 429.
    private func commit(_ samples: [Float], itemID: String, deltas: ItemDeltaStream? = nil, speaker: String? = nil) {
        send(.committed(itemID: itemID, previousItemID: previousItemID))
        previousItemID = itemID
        transcriptions.removeAll { $0.isFinished }
        let place: QueuePlace
        do {
            guard transcriptions.count < Self.maxPendingItems else {
                throw APIError.queueFull(retryAfter: 1)
            }
            place = try limiter.reserve()
        } catch {
            let refusal = error as? APIError ?? APIError.queueFull(retryAfter: 1)
            send(.transcriptionFailed(itemID: itemID, error: RealtimeEventError(
                code: refusal.code ?? "queue_full", "The server is busy: this item was not transcribed. "
                + refusal.message, type: refusal.type)))
            return
        }
        let previous = lastTranscription
        let options = settings.options(configuration)
        let (configuration, metrics, logger, output) = (configuration, metrics, logger, output)
        let deltas = deltas ?? ItemDeltaStream(itemID: itemID, output: output)
        let task = ItemTranscription {
            await previous?.value
            await Self.transcribe(samples, itemID: itemID, speaker: speaker, options: options, configuration: configuration,
                                  place: place, metrics: metrics, logger: logger, deltas: deltas, output: output)
        }
        lastTranscription = task
        transcriptions.append(task)
    }

    /// Transcribes one item: `delta` for the text of each final result beyond what was sent, then `completed`, or
    /// `failed`.
    private static func transcribe(_ samples: [Float], itemID: String, speaker: String?, options: FileTranscriber.Options,
                                   configuration: ServerConfiguration, place: QueuePlace,
                                   metrics: ServerMetrics, logger: Logger, deltas: ItemDeltaStream,
                                   output: RealtimeOutbox) async {
        guard !Task.isCancelled else { return }
        let transcriber = FileTranscriber(options: options, store: configuration.store)
        do {
            try await configuration.prepareModels(for: transcriber, logger: logger)
            let slot = try await place.acquire()
            let start = ContinuousClock.now
            let transcript = try await transcriber.transcribe(samples: samples) { event in
                guard case .finalText(let text) = event else { return }
                deltas.final(text)
            }
            slot.release()
            let elapsed = ContinuousClock.now - start
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
            let duration = Double(samples.count) / 16_000
            metrics.transcribed(audioSeconds: duration, processingSeconds: seconds)
            logger.info("realtime item transcribed", metadata: [
                "item": .string(itemID), "audio_seconds": .stringConvertible(duration),
                "processing_seconds": .stringConvertible(seconds),
            ])
            let logprobs = options.wordTimestamps ? Self.wordLogprobs(transcript) : nil
            output.yield(RealtimeServerEvent.transcriptionCompleted(itemID: itemID, transcript: transcript.text,
                                                                    audioSeconds: duration, logprobs: logprobs,
                                                                    speaker: speaker).json)
        } catch {
            if error is CancellationError || Task.isCancelled { return }
            let failure: RealtimeEventError
            if let error = error as? APIError {
                failure = RealtimeEventError(code: error.code ?? "transcription_failed", error.message, type: error.type)
            } else {
                logger.error("realtime item failed", metadata: ["item": .string(itemID), "error": "\(error)"])
                failure = RealtimeEventError(code: "transcription_failed", "The server failed to transcribe this item; "
                                             + "its log has the details under item id \(itemID).", type: "server_error")
            }
            output.yield(RealtimeServerEvent.transcriptionFailed(itemID: itemID, error: failure).json)
        }
    }

    /// `include: ["item.input_audio_transcription.logprobs"]`: the log-probability of each word of the transcript,
    /// as OpenAI's `logprobs` entries (`token`, `logprob`, `bytes`). The engine does not keep each token's
    /// probability beyond the word it belongs to: an entry is a word (with its leading space, but the first), its
    /// log-probability the log of the mean probability of its tokens.
    static func wordLogprobs(_ transcript: Transcript) -> [RealtimeServerEvent.Logprob] {
        transcript.segments.flatMap(\.words).compactMap { word -> (String, Double)? in
            guard let confidence = word.confidence, confidence > 0, confidence.isFinite else { return nil }
            return (word.word, log(min(1, confidence)))
        }.enumerated().map { index, pair in
            let token = index == 0 ? pair.0 : " " + pair.0
            return RealtimeServerEvent.Logprob(token: token, logprob: pair.1, bytes: Array(token.utf8))
        }
    }

    private func send(_ event: RealtimeServerEvent) {
        output.yield(event.json)
    }

    private static func milliseconds(_ sample: Int64) -> Int {
        Int(sample / 16)
    }

    private static func makeConverter(_ format: RealtimeAudioFormat) throws -> MonoStreamConverter {
        try MonoStreamConverter(inputFormat: AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: format.sampleRate,
                                                           channels: 1, interleaved: true)!)
    }

    /// Silero VAD when its model is installed (scored one 32 ms chunk at a time, so cuts of the input never
    /// change a probability), else the energy detector.
    private static func makeDetector(_ configuration: ServerConfiguration) -> any VoiceActivityDetector {
        if let folder = configuration.store.installedDirectory(for: SpeechDetector.modelID),
           let model = try? SileroVAD(directory: folder) {
            return model.makeStream(batchChunks: 1)
        }
        return EnergyVADStream()
    }
}

/// One committed item's transcription, running detached, and whether it has ended (a session counts its items
/// waiting).
private struct ItemTranscription: Sendable {
    private final class Flag: Sendable {
        let ended = Atomic(false)
    }

    private let flag = Flag()
    private let task: Task<Void, Never>

    init(_ work: @escaping @Sendable () async -> Void) {
        let flag = self.flag
        task = Task.detached {
            await work()
            flag.ended.store(true, ordering: .releasing)
        }
    }

    var isFinished: Bool { flag.ended.load(ordering: .acquiring) }

    /// Waits for the transcription's end.
    var value: Void {
        get async { await task.value }
    }

    func cancel() {
        task.cancel()
    }
}
