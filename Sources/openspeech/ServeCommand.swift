import ArgumentParser
import Foundation
import OpenSpeech
import OpenSpeechServer
import SpeechAssets

/// `openspeech serve`: OpenAI's audio API on this machine (see OpenSpeechServer).
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve OpenAI's audio transcription API over HTTP (POST /v1/audio/transcriptions ...).")

    @Option(help: "Address to listen on (0.0.0.0: every interface).")
    var host = "127.0.0.1"

    @Option(help: "Port to listen on (0: any free port).")
    var port = 8000

    @Option(help: "Key clients must send as `Authorization: Bearer KEY` (default: $OPENSPEECH_API_KEY; none: no key needed).")
    var apiKey: String?

    @Option(help: "Transcriptions running at once (default: the number of cores).")
    var maxConcurrency: Int?

    @Option(help: "Requests waiting for a slot before the server answers 429 (default: 4 per slot).")
    var maxQueue: Int?

    @Option(help: "Realtime transcription sessions (WebSockets) open at once (default: 8 per transcription slot).")
    var maxRealtimeSessions: Int?

    @Option(help: "Largest upload accepted, in megabytes.")
    var maxUploadMb = 25

    @Option(help: "Uploads received or held on disk at once before the server answers 429 (default: four times the slots and queue places).")
    var maxUploads: Int?

    @Option(help: "Seconds a client has to send a request's head, and a connection may stay idle, before it is closed.")
    var requestTimeout: Double = 30

    @Option(help: "A web origin (https://app.example.com) allowed to call a server without an API key, besides this machine's own pages; repeat it for more, `*` for any.")
    var allowOrigin: [String] = []

    @Option(help: "Language when a request names none, e.g. en-US (default: detected in each upload's first speech).")
    var locale: String?

    @Option(help: "Catalog model behind `whisper-1` and requests naming no model (default: the language's).")
    var model: String?

    @OptionGroup var beam: BeamSizeOption

    @Option(help: "Precision of the engine's products: auto, int8, int8_float32, bfloat16, float16 or float32 (default: auto with the speech detector, float32 with --no-vad).")
    var computeType: ComputeType?

    @Flag(help: "Transcribe all the audio, without the speech detector.")
    var noVad = false

    @Flag(help: "Refuse requests for models that are not installed instead of installing them on first use.")
    var noDownload = false

    func validate() throws {
        if let maxConcurrency, maxConcurrency < 1 { throw ValidationError("--max-concurrency must be at least 1.") }
        if let maxQueue, maxQueue < 0 { throw ValidationError("--max-queue must be 0 or more.") }
        if let maxRealtimeSessions, maxRealtimeSessions < 1 {
            throw ValidationError("--max-realtime-sessions must be at least 1.")
        }
        if maxUploadMb < 1 { throw ValidationError("--max-upload-mb must be at least 1.") }
        if let maxUploads, maxUploads < 1 { throw ValidationError("--max-uploads must be at least 1.") }
        if !(requestTimeout > 0 && requestTimeout <= 3_600) {
            throw ValidationError("--request-timeout must be more than 0 and at most 3600 seconds.")
        }
    }

    func run() async throws {
        AllocatorPolicy.apply()
        let detects = locale == nil || locale?.lowercased() == "auto"
        let requested = detects ? "en-US" : locale!
        guard let chosen = SpeechTranscriber.supportedLocale(equivalentTo: Locale(identifier: requested)) else {
            throw CommandFailure("no model transcribes \(requested); see `openspeech models list`.")
        }
        let slots = maxConcurrency ?? ProcessInfo.processInfo.activeProcessorCount
        let key = apiKey ?? ProcessInfo.processInfo.environment["OPENSPEECH_API_KEY"]
        let configuration = ServerConfiguration(
            host: host, port: port, apiKey: key, maxConcurrency: slots, maxQueue: maxQueue ?? 4 * slots,
            maxUploadBytes: maxUploadMb << 20, defaultLocale: chosen, defaultModelID: model, beamSize: beam.beamSize,
            computeType: computeType, detectsSpeech: !noVad, installsMissingModels: !noDownload, detectsLanguage: detects,
            maxRealtimeSessions: maxRealtimeSessions ?? 8 * slots, maxUploads: maxUploads, requestTimeout: requestTimeout,
            allowedOrigins: allowOrigin)

        // The default model is ready before the first request (installed unless --no-download).
        let transcriber = FileTranscriber(options: .init(locale: chosen, modelID: model, detectsSpeech: !noVad,
                                                         detectsLanguage: detects), store: configuration.store)
        _ = try await transcriber.prepareModels(installing: !noDownload) { id, fraction in
            if fraction == 0 { FileHandle.standardError.write(Data("openspeech: installing \(id)\n".utf8)) }
        }

        let host = self.host
        try await SpeechServer(configuration: configuration).run { port in
            FileHandle.standardError.write(Data("openspeech: listening on http://\(host):\(port)\n".utf8))
        }
    }
}
