import Foundation
import OpenSpeech
import SpeechAssets

/// How `openspeech serve` runs: where it listens, who may call it, how much work it takes at once, and the
/// transcription options requests start from.
public struct ServerConfiguration: Sendable {
    /// The address to listen on (`127.0.0.1`: this machine only; `0.0.0.0`: every interface).
    public var host: String
    /// The TCP port (0: any free port, printed when the server is listening).
    public var port: Int
    /// The key clients must send as `Authorization: Bearer KEY`; nil: no key required.
    public var apiKey: String?
    /// Transcriptions running at once; more wait in the queue.
    public var maxConcurrency: Int
    /// Requests that may wait for a free slot; beyond this the server answers 429.
    public var maxQueue: Int
    /// The largest upload accepted, in bytes (larger: 413).
    public var maxUploadBytes: Int
    /// The language when a request names none (and `detectsLanguage` is off).
    public var defaultLocale: Locale
    /// Whether a transcription request that names no language has it detected in the upload's first speech (as
    /// OpenAI's API does), the model then chosen for that language (`verbose_json` gives the language detected).
    public var detectsLanguage: Bool
    /// The catalog model behind `whisper-1` and requests naming no model; nil: the default locale's model.
    public var defaultModelID: String?
    /// Beam width (nil: the library's default).
    public var beamSize: Int?
    /// The precision of the engine's products; nil: `FileTranscriber.Options.defaultComputeType` (`auto` with the
    /// speech detector, `float32` without).
    public var computeType: ComputeType?
    /// Whether a speech detector chooses what the model hears.
    public var detectsSpeech: Bool
    /// Whether a catalog model that is not installed is installed on first use (otherwise it is refused).
    public var installsMissingModels: Bool
    /// Where models are looked for and installed.
    public var store: ModelStore
    /// Realtime transcription sessions (WebSockets) open at once; one more is refused (`openspeech serve`: 8 per
    /// transcription slot).
    public var maxRealtimeSessions: Int
    /// Uploads being received or held on disk at once; one more is refused (429) before its body is read. The disk
    /// holds at most this many times `maxUploadBytes` of uploads. Default: four times the slots and queue places.
    public var maxUploads: Int
    /// Seconds a client has to send a request's head, and that a connection may stay idle (between requests, or in
    /// a body that stops arriving), before it is closed.
    public var requestTimeout: Double
    /// Web origins allowed to call a server without an API key, besides this machine's own (`*`: any); see
    /// `OriginPolicy`. Ignored when a key is set.
    public var allowedOrigins: [String]

    public init(host: String = "127.0.0.1", port: Int = 8000, apiKey: String? = nil, maxConcurrency: Int = 2,
                maxQueue: Int = 16, maxUploadBytes: Int = 25 << 20, defaultLocale: Locale = Locale(identifier: "en-US"),
                defaultModelID: String? = nil, beamSize: Int? = nil, computeType: ComputeType? = nil,
                detectsSpeech: Bool = true, installsMissingModels: Bool = true, store: ModelStore = ModelStore(),
                detectsLanguage: Bool = false, maxRealtimeSessions: Int = 16, maxUploads: Int? = nil,
                requestTimeout: Double = 30, allowedOrigins: [String] = []) {
        self.detectsLanguage = detectsLanguage
        self.host = host
        self.port = port
        self.apiKey = apiKey
        self.maxConcurrency = maxConcurrency
        self.maxQueue = maxQueue
        self.maxUploadBytes = maxUploadBytes
        self.defaultLocale = defaultLocale
        self.defaultModelID = defaultModelID
        self.beamSize = beamSize
        self.computeType = computeType
        self.detectsSpeech = detectsSpeech
        self.installsMissingModels = installsMissingModels
        self.store = store
        self.maxRealtimeSessions = maxRealtimeSessions
        self.maxUploads = maxUploads ?? 4 * (max(1, maxConcurrency) + max(0, maxQueue))
        self.requestTimeout = requestTimeout
        self.allowedOrigins = allowedOrigins
    }
}
