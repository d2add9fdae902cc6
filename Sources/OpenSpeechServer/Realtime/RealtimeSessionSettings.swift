import Foundation
import OpenSpeech
import SpeechAssets

/// A Realtime transcription session's settings: the audio format, the model and language, the prompt and hotwords,
/// and server VAD (nil: off, the client commits). Starts from OpenAI's defaults (`pcm16`, `whisper-1`, server VAD
/// at threshold 0.5, 300 ms prefix padding, 500 ms of silence); `applying(_:)` checks an update whole before any of
/// it takes effect.
package struct RealtimeSessionSettings: Sendable, Equatable {
    struct TurnDetection: Sendable, Equatable {
        var threshold = 0.5
        var prefixPaddingMilliseconds = 300
        var silenceDurationMilliseconds = 500
        /// `semantic_vad`'s eagerness (`low`, `medium`, `high`, `auto`); nil: `server_vad`.
        var eagerness: String?

        /// `semantic_vad` at `eagerness`. Whisper has no model of where a turn ends, so the eagerness chooses how
        /// long a silence ends one: `high` 400 ms (turns end soonest), `medium` and `auto` 800 ms, `low` 1,200 ms
        /// (the speaker may pause); threshold 0.5 and 300 ms of prefix padding, as server VAD's defaults.
        static func semantic(eagerness: String) -> TurnDetection {
            let silence = switch eagerness {
            case "high": 400
            case "low": 1_200
            default: 800
            }
            return TurnDetection(silenceDurationMilliseconds: silence, eagerness: eagerness)
        }
    }

    /// `input_audio_noise_reduction`: what it does here is a high-pass filter on the 16 kHz audio before server VAD
    /// and transcription, removing rumble, hum and handling noise below the voice (80 Hz for `near_field`, 120 Hz
    /// for `far_field`); not a denoiser such as OpenAI's.
    package enum NoiseReduction: String, Sendable, Equatable, CaseIterable {
        case nearField = "near_field"
        case farField = "far_field"

        package var cutoffHertz: Double { self == .nearField ? 80 : 120 }
    }

    /// The value of `include` that adds `logprobs` to the completed events.
    static let logprobsInclude = "item.input_audio_transcription.logprobs"

    package var inputAudioFormat = RealtimeAudioFormat.pcm16
    /// The model as the client named it (an OpenAI name or a catalog id).
    var model = "whisper-1"
    /// The catalog model that runs.
    var modelID: String
    /// The language as the client gave it (ISO 639-1), nil: the server's default.
    var language: String?
    var locale: Locale
    var prompt: String?
    /// Phrases the decoder favours (an OpenSpeech extension).
    var hotwords: [String] = []
    /// Label each item with who spoke it (an OpenSpeech extension).
    var diarize = false
    var turnDetection: TurnDetection? = TurnDetection()
    package var noiseReduction: NoiseReduction?
    /// `include` asked for `item.input_audio_transcription.logprobs`.
    var includesLogprobs = false

    /// The defaults on `configuration`'s default language and model.
    package init(configuration: ServerConfiguration) throws(RealtimeEventError) {
        locale = configuration.defaultLocale
        modelID = try Self.resolveModelID(requested: "whisper-1", locale: locale, configuration: configuration)
    }

    /// These settings with `update` applied; throws (leaving them as they were) when any part is invalid.
    package func applying(_ update: RealtimeSessionUpdate, configuration: ServerConfiguration) throws(RealtimeEventError) -> Self {
        var next = self
        if let format = update.inputAudioFormat { next.inputAudioFormat = format }
        if let language = update.language?.trimmingCharacters(in: .whitespaces) {
            if language.isEmpty {
                next.language = nil
                next.locale = configuration.defaultLocale
            } else {
                let resolver = LocaleModelResolver(catalog: configuration.store.catalog)
                guard let locale = resolver.supportedLocale(equivalentTo: Locale(identifier: language)) else {
                    throw RealtimeEventError(code: "unsupported_language", "The language `\(language)` is not one this "
                                             + "server's catalog transcribes.",
                                             param: "session.input_audio_transcription.language")
                }
                next.language = language
                next.locale = locale
            }
        }
        if let model = update.model?.trimmingCharacters(in: .whitespaces) {
            next.model = model.isEmpty ? "whisper-1" : model
        }
        if let prompt = update.prompt { next.prompt = prompt.isEmpty ? nil : prompt }
        if let hotwords = update.hotwords { next.hotwords = hotwords }
        if let diarize = update.diarize { next.diarize = diarize }
        if update.model != nil || update.language != nil || update.prompt != nil {
            next.modelID = try Self.resolveModelID(requested: next.model, locale: next.locale,
                                                   needs: next.options(configuration).needs, configuration: configuration)
        }
        switch update.turnDetection {
        case nil: break
        case .off: next.turnDetection = nil
        case .semanticVAD(let eagerness):
            next.turnDetection = .semantic(eagerness: eagerness)
        case .serverVAD(let threshold, let padding, let silence):
            // From semantic VAD, server VAD starts from its defaults.
            var detection = next.turnDetection.flatMap { $0.eagerness == nil ? $0 : nil } ?? TurnDetection()
            if let threshold { detection.threshold = threshold }
            if let padding { detection.prefixPaddingMilliseconds = padding }
            if let silence { detection.silenceDurationMilliseconds = silence }
            next.turnDetection = detection
        }
        switch update.noiseReduction {
        case nil: break
        case .off: next.noiseReduction = nil
        case .on(let kind): next.noiseReduction = kind
        }
        if let include = update.include { next.includesLogprobs = include.contains(Self.logprobsInclude) }
        return next
    }

    /// The catalog model for `requested` (an OpenAI name, served by the default model, or a catalog id) in `locale`,
    /// for a session that needs `needs`.
    static func resolveModelID(requested: String, locale: Locale, needs: CatalogModel.Capabilities = [],
                               configuration: ServerConfiguration) throws(RealtimeEventError) -> String {
        switch ServedModel.modelID(requested: requested, locale: locale, needs: needs, configuration: configuration) {
        case .success(let id):
            return id
        case .failure(.unknownModel):
            throw RealtimeEventError(code: "model_not_found", "The model `\(requested)` does not exist; GET /v1/models "
                                     + "lists the models this server has.", param: "session.input_audio_transcription.model")
        case .failure(.noModelForLanguage):
            throw RealtimeEventError(code: "unsupported_language", "No model transcribes \(locale.identifier).",
                                     param: "session.input_audio_transcription.language")
        case .failure(.languageNotSpoken):
            let language = LocaleModelResolver.whisperLanguage(of: locale) ?? "en"
            throw RealtimeEventError(code: "unsupported_language", "The model `\(requested)` does not transcribe "
                                     + "\(language).", param: "session.input_audio_transcription.language")
        }
    }

    /// The library's options for transcribing one committed item.
    func options(_ configuration: ServerConfiguration) -> FileTranscriber.Options {
        FileTranscriber.Options(locale: locale, modelID: modelID, beamSize: configuration.beamSize,
                                wordTimestamps: includesLogprobs, detectsSpeech: configuration.detectsSpeech,
                                computeType: configuration.computeType, contextualStrings: hotwords, prompt: prompt)
    }

    /// The session object of `transcription_session.created` / `.updated`, in OpenAI's shape.
    func sessionObject(id: String) -> [String: Any] {
        let transcription: [String: Any] = [
            "model": model, "language": language.map { $0 as Any } ?? NSNull(), "prompt": prompt ?? "", "hotwords": hotwords,
            "diarize": diarize,
        ]
        var detection: Any = NSNull()
        if let turnDetection, let eagerness = turnDetection.eagerness {
            detection = ["type": "semantic_vad", "eagerness": eagerness] as [String: Any]
        } else if let turnDetection {
            detection = ["type": "server_vad", "threshold": turnDetection.threshold,
                         "prefix_padding_ms": turnDetection.prefixPaddingMilliseconds,
                         "silence_duration_ms": turnDetection.silenceDurationMilliseconds] as [String: Any]
        }
        return [
            "id": id, "object": "realtime.transcription_session", "input_audio_format": inputAudioFormat.rawValue,
            "input_audio_transcription": transcription, "turn_detection": detection,
            "input_audio_noise_reduction": noiseReduction.map { ["type": $0.rawValue] as Any } ?? NSNull(),
            "include": includesLogprobs ? [Self.logprobsInclude] as Any : NSNull(), "modalities": ["text"],
            "client_secret": NSNull(),
        ]
    }
}
