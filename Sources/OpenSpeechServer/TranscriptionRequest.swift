import Foundation
import OpenSpeech
import SpeechAssets
import SpeechEngine

/// What a transcription or translation request asks for, read from its form fields and checked before any work:
/// the model (a catalog id, or an OpenAI name such as `whisper-1` meaning the server's default), the language, the
/// response format and time-stamp granularities, streaming, speakers (`SpeakerRequest`).
struct TranscriptionRequest: Sendable {
    enum Operation: String, Sendable {
        case transcribe, translate
    }

    var task: Operation
    /// The model named: a catalog id, the server's default for an OpenAI name or none, or nil when the library's
    /// plan chooses (the language's model, or a multilingual one to detect or translate with).
    var requestedModelID: String?
    var locale: Locale
    var format: ResponseFormat
    var wordTimestamps: Bool
    var segmentTimestamps: Bool
    var stream: Bool
    /// The `prompt` field: text as if heard before the audio.
    var prompt: String?
    /// The `temperature` field: 0 (or none) decodes at 0 with Whisper's fallback to higher temperatures, as
    /// OpenAI documents; above 0, that temperature only.
    var temperature: Double?
    /// Words and phrases the decoder favours (`hotwords`, as speaches takes it), apart from `prompt`.
    var hotwords: [String]
    /// Translation without a language, or transcription without one on a server that detects it: the language is
    /// detected in the upload's first speech.
    var detectsLanguage = false
    /// Who speaks when, when the request asks (`diarized_json`, `diarize=true`); nil otherwise.
    var speakers: SpeakerRequest?

    init(_ upload: MultipartUpload, task: Operation, configuration: ServerConfiguration) throws {
        self.task = task
        let catalog = configuration.store.catalog
        let resolver = LocaleModelResolver(catalog: catalog)

        // Language: ISO 639-1 (`en`) as OpenAI takes it, or a locale (`en-US`); translation's output is English.
        let language = upload.field("language").map { $0.trimmingCharacters(in: .whitespaces) }.flatMap { $0.isEmpty ? nil : $0 }
        if let language {
            guard let locale = resolver.supportedLocale(equivalentTo: Locale(identifier: language)) else {
                throw APIError(.badRequest, "The language `\(language)` is not one this server's catalog transcribes.",
                               param: "language", code: "unsupported_language")
            }
            self.locale = locale
        } else {
            self.locale = configuration.defaultLocale
        }
        // Translation (Whisper's translate task: any language to English) without a language detects it; so does
        // transcription on a server that detects languages.
        detectsLanguage = language == nil && (task == .translate || configuration.detectsLanguage)

        // Model: a catalog id, or an OpenAI name / nothing for the server's default when it fits the request. Which
        // model runs otherwise is the library's plan, as for every front end.
        let requested = upload.field("model")?.trimmingCharacters(in: .whitespaces) ?? ""
        let whisperLanguage = LocaleModelResolver.whisperLanguage(of: locale) ?? "en"
        if ServedModel.meansDefault(requested) {
            let fallback = configuration.defaultModelID.flatMap(catalog.model)
            let fits: Bool = switch fallback {
            case nil: false
            case let model? where task == .translate: model.languages.count > 1
            case let model? where detectsLanguage: model.isTranscriptionModel
            case let model?: model.languages.contains(whisperLanguage)
            }
            requestedModelID = fits ? fallback?.id : nil
        } else {
            guard let model = catalog.model(requested), model.isTranscriptionModel else {
                throw APIError.unknownModel(requested)
            }
            if task == .translate && model.languages.count < 2 {
                let multilingual = try? FileTranscriber(options: .init(locale: locale, task: .translate),
                                                        store: configuration.store).transcriptionModelID()
                throw APIError(.badRequest, "The model `\(requested)` is English-only and cannot translate; translation "
                               + "needs a multilingual model such as \(multilingual ?? "whisper-base").",
                               param: "model", code: "unsupported_model")
            }
            if !detectsLanguage && !model.languages.contains(whisperLanguage) {
                throw APIError(.badRequest, "The model `\(requested)` does not transcribe \(whisperLanguage); its "
                               + "languages: \(model.languages.prefix(10).joined(separator: ", ")).",
                               param: "language", code: "unsupported_language")
            }
            requestedModelID = requested
        }
        // An English-only model named (or the server's default) transcribes whatever the language: detection would
        // only warn, and the server has no one to warn.
        if task == .transcribe, let id = requestedModelID, catalog.model(id)?.languages == ["en"] {
            detectsLanguage = false
        }

        let formatName = upload.field("response_format")?.trimmingCharacters(in: .whitespaces) ?? "json"
        guard let format = ResponseFormat(rawValue: formatName.isEmpty ? "json" : formatName) else {
            throw APIError(.badRequest, "response_format must be one of \(ResponseFormat.names); got `\(formatName)`.",
                           param: "response_format", code: "invalid_value")
        }
        self.format = format

        let granularities = (upload.fields["timestamp_granularities[]"] ?? []) + (upload.fields["timestamp_granularities"] ?? [])
        for value in granularities where value != "word" && value != "segment" {
            throw APIError(.badRequest, "timestamp_granularities[] takes `word` and `segment`; got `\(value)`.",
                           param: "timestamp_granularities", code: "invalid_value")
        }
        wordTimestamps = granularities.contains("word")
        segmentTimestamps = granularities.isEmpty || granularities.contains("segment")

        if let temperature = upload.field("temperature"), !temperature.isEmpty {
            guard let value = Double(temperature), (0...1).contains(value) else {
                throw APIError(.badRequest, "temperature must be a number from 0 to 1.", param: "temperature",
                               code: "invalid_value")
            }
            self.temperature = value
        }
        // Only the prompt's end reaches the model (its last 223 tokens): the rest is not kept.
        prompt = upload.field("prompt").flatMap { $0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty ? nil : $0 }
            .map(PromptText.usableTail)
        stream = ["true", "1"].contains(upload.field("stream")?.lowercased() ?? "")
        do {
            hotwords = try HotwordList.parse(upload.field("hotwords") ?? "")
        } catch {
            throw APIError(.badRequest, error.message, param: "hotwords", code: "invalid_value")
        }
        speakers = try SpeakerRequest.parse(upload, format: format, task: task, stream: stream)
        // A request no model serves is refused now, before its upload is transcribed.
        _ = try plannedModelID(configuration)
    }

    /// The model the library's plan runs for this request with the models installed now (with detection, the one
    /// that hears the language); its refusals as the API's errors.
    func plannedModelID(_ configuration: ServerConfiguration) throws -> String {
        let options = self.options(configuration)
        do {
            return try FileTranscriber(options: options, store: configuration.store).transcriptionModelID()
        } catch ModelAssetError.unknownModel(let id, _) {
            throw APIError.unknownModel(id)
        } catch let error as SFSpeechError where error.code == .noModel {
            throw APIError(.badRequest, "This server's catalog has no multilingual model to detect the language with; "
                           + "give the `language` field.", param: "language", code: "unsupported_language")
        } catch is SFSpeechError {
            throw APIError(.badRequest, "No model transcribes \(options.locale.identifier).", param: "language",
                           code: "unsupported_language")
        }
    }

    /// The library's options for this request.
    func options(_ configuration: ServerConfiguration) -> FileTranscriber.Options {
        FileTranscriber.Options(
            locale: locale, modelID: requestedModelID, beamSize: configuration.beamSize,
            // Speakers are given to words (a segment split where its words change speaker).
            wordTimestamps: (wordTimestamps && format == .verboseJSON) || format == .srt || format == .vtt
                || speakers != nil,
            detectsSpeech: configuration.detectsSpeech, computeType: configuration.computeType,
            contextualStrings: hotwords, prompt: prompt, temperatures: temperature.flatMap { $0 > 0 ? [$0] : nil },
            detectsLanguage: detectsLanguage, task: task == .translate ? .translate : .transcribe)
    }
}
