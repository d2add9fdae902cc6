import Foundation
import Hummingbird
import Logging
import OpenSpeech
import SpeechAudio

/// `POST /v1/audio/transcriptions` and `POST /v1/audio/translations`: a multipart upload, checked, queued for a
/// slot, transcribed by the library's `FileTranscriber` (whose engine runs on its own executors, off Swift's
/// cooperative pool), answered in the requested format or streamed as server-sent events. A request for speakers is
/// diarized first, in its slot (`SpeakerDiarizer`: a bad known-speaker reference is refused before the transcription
/// runs, and before a stream's headers go out), its turns then given to the transcript's segments and words. The
/// upload's temporary folder is removed on every path; a client that disconnects cancels its request (in the queue,
/// or at the engine's next window).
struct TranscriptionRoutes: Sendable {
    let configuration: ServerConfiguration
    let limiter: ConcurrencyLimiter
    let uploads: UploadLimit
    let metrics: ServerMetrics
    let logger: Logger

    func add(to router: Router<ServerRequestContext>) {
        router.post("/v1/audio/transcriptions") { request, context in
            try await handle(request, context: context, task: .transcribe)
        }
        router.post("/v1/audio/translations") { request, context in
            try await handle(request, context: context, task: .translate)
        }
    }

    private func handle(_ request: Request, context: ServerRequestContext,
                        task: TranscriptionRequest.Operation) async throws -> Response {
        // These answers need no body: they are given before it is read (the connection closes after every answer on
        // these routes, so an unread upload is not read).
        if let length = request.headers[.contentLength].flatMap(Int.init), length > configuration.maxUploadBytes {
            throw APIError.tooLarge(limit: configuration.maxUploadBytes)
        }
        guard let boundary = MultipartUpload.boundary(of: request.headers[.contentType]) else {
            throw APIError(.badRequest, "Send the request as multipart/form-data (with its boundary) and the audio in "
                           + "the field `file`.", code: "invalid_content_type")
        }
        let place = try uploads.admit()
        // The whole exchange is cancelled if the client closes its connection before the answer.
        return try await request.body.consumeWithCancellationOnInboundClose { body in
            // The upload's folder and the slot are leases: given back when the work ends, or on any other path when
            // their last reference goes (a streaming body that never runs).
            let upload = try await MultipartUpload.read(body, boundary: boundary, maxBytes: configuration.maxUploadBytes,
                                                        place: place)
            let parsed = try TranscriptionRequest(upload, task: task, configuration: configuration)
            guard let file = upload.file else { throw APIError.missingFile() }
            guard upload.fileSize > 0 else { throw APIError.emptyFile() }
            try await ensureModels(for: parsed)
            let slot = try await limiter.acquire()
            let turns: [SpeakerTurn]?
            do {
                turns = try await speakerTurns(file, parsed)
            } catch {
                slot.release()
                upload.folder.release()
                throw Self.apiError(for: error, file: file)
            }
            if parsed.stream {
                return streamingResponse(file: file, request: parsed, turns: turns, context: context,
                                         leases: [slot, upload.folder])
            }
            defer {
                slot.release()
                upload.folder.release()
            }
            do {
                var transcript = try await transcribe(file, parsed)
                if let turns { transcript = transcript.attributingSpeakers(turns) }
                let document = try parsed.format.document(transcript, request: parsed)
                return Response(status: .ok, headers: [.contentType: parsed.format.contentType],
                                body: .init(byteBuffer: ByteBuffer(string: document)))
            } catch {
                throw Self.apiError(for: error, file: file)
            }
        }
    }

    /// Installs the request's models if they are missing and the server may install models; refuses them otherwise.
    private func ensureModels(for request: TranscriptionRequest) async throws {
        try await configuration.prepareModels(
            for: FileTranscriber(options: request.options(configuration), store: configuration.store), logger: logger)
        if request.speakers != nil { try await configuration.prepareDiarizationModels(logger: logger) }
    }

    /// Who speaks when in `file`, labelled as OpenAI labels speakers; nil when the request asks for no speakers.
    /// Throws the API's errors (a known speaker's reference with too little speech: 400 naming it).
    private func speakerTurns(_ file: URL, _ request: TranscriptionRequest) async throws -> [SpeakerTurn]? {
        guard let speakers = request.speakers else { return nil }
        let diarizer = SpeakerDiarizer(options: speakers.options, store: configuration.store)
        let start = ContinuousClock.now
        let result: SpeakerDiarizer.Result
        do {
            result = try await diarizer.diarize(contentsOf: file)
        } catch let error as SpeakerDiarizationError {
            throw speakers.apiError(for: error)
        }
        // The diarizer does not stop part-way: a request whose client left stops here, before its transcription.
        try Task.checkCancellation()
        let elapsed = ContinuousClock.now - start
        logger.info("diarized", metadata: [
            "speakers": .stringConvertible(result.speakers.count),
            "known_speakers": .string(result.namedSpeakers.joined(separator: ",")),
            "processing_seconds": .stringConvertible(
                Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18),
        ])
        if let notice = result.notice { logger.info("speakers", metadata: ["notice": .string(notice)]) }
        return OpenAISpeakerLabels.turns(of: result, names: speakers.names)
    }

    /// The library's transcription of `file`, timed for the metrics.
    private func transcribe(_ file: URL, _ request: TranscriptionRequest,
                            events: @escaping @Sendable (FileTranscriber.Event) -> Void = { _ in }) async throws -> Transcript {
        let transcriber = FileTranscriber(options: request.options(configuration), store: configuration.store)
        let start = ContinuousClock.now
        let transcript = try await transcriber.transcribe(contentsOf: file, events: events)
        let elapsed = ContinuousClock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        metrics.transcribed(audioSeconds: transcript.duration, processingSeconds: seconds)
        logger.info("transcribed", metadata: [
            "model": .string(transcript.model ?? ""), "audio_seconds": .stringConvertible(transcript.duration),
            "processing_seconds": .stringConvertible(seconds),
        ])
        return transcript
    }

    /// Server-sent events in OpenAI's shape: `transcript.text.delta` as each final result arrives, then (with
    /// speakers, `diarized_json`) a `transcript.text.segment` per segment of the whole transcript, then
    /// `transcript.text.done` with the whole text; a failure after the headers went out is an `error` event.
    /// The work stops as soon as the connection closes (a client that resets its connection is seen at once, not at
    /// the next write).
    private func streamingResponse(file: URL, request: TranscriptionRequest, turns: [SpeakerTurn]?,
                                   context: ServerRequestContext, leases: [Lease]) -> Response {
        let body = ResponseBody { writer in
            let (deltas, continuation) = AsyncStream<String>.makeStream()
            let work = Task {
                defer { continuation.finish() }
                return try await transcribe(file, request) { event in
                    if case .finalText(let text) = event { continuation.yield(text) }
                }
            }
            context.channel.closeFuture.whenComplete { _ in work.cancel() }
            do {
                try await withTaskCancellationHandler {
                    var started = false
                    for await delta in deltas {
                        // The transcript's text has no leading space; neither has its first delta.
                        let text = started ? delta : String(delta.drop { $0.isWhitespace })
                        guard !text.isEmpty else { continue }
                        started = true
                        try await writer.write(Self.event(["type": "transcript.text.delta", "delta": text]))
                    }
                    let transcript = try await work.value
                    if let turns {
                        let unlabelled = OpenAISpeakerLabels.unlabelled(names: request.speakers?.names ?? [])
                        for segment in DiarizedJSONDocument.segments(of: transcript.attributingSpeakers(turns),
                                                                     unlabelled: unlabelled) {
                            try await writer.write(ByteBuffer(string: "data: \(try DiarizedJSONDocument.json(segment))\n\n"))
                        }
                    }
                    try await writer.write(Self.event(["type": "transcript.text.done", "text": transcript.text]))
                } onCancel: {
                    work.cancel()
                }
            } catch {
                work.cancel()
                let failure = Self.apiError(for: error, file: file).answer(requestID: context.id, logger: logger)
                try? await writer.write(ByteBuffer(string: "data: \(failure.json)\n\n"))
            }
            _ = try? await work.value
            for lease in leases { lease.release() }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"], body: body)
    }

    private static func event(_ fields: [String: String]) -> ByteBuffer {
        let data = (try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return ByteBuffer(string: "data: \(String(decoding: data, as: UTF8.self))\n\n")
    }

    /// The OpenAI-shaped error for a failed transcription. Paths of the server's temporary files are not shown.
    static func apiError(for error: any Error, file: URL) -> APIError {
        switch error {
        case let error as APIError:
            return error
        case let error as AudioError:
            let reason = error.description.replacingOccurrences(of: file.path, with: "the uploaded file")
            return .undecodableAudio(reason)
        case is CancellationError:
            return APIError(.init(code: 499), "The request was cancelled.", code: "cancelled")
        default:
            return .internalError(error)
        }
    }
}
