import Foundation
import OpenSpeech
import SpeechAssets
import SpeechEngine

/// What a transcription or translation request asks for, read from its form fields and checked before any work:
/// the model (a catalog id, or an OpenAI name such as `whisper-1` meaning the server's default), the language, the
/// response format and time-stamp granularities, streaming.
struct TranscriptionRequest: Sendable {
    enum Operation: String, Sendable {
        case transcribe, translate
    }

    var task: Operation
    var modelID: String
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
    /// Detection with no model named: the library picks the model for the language detected (`modelID` is then
    /// the model that detects).
    var choosesModelByLanguage = false

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
        let whisperLanguage = LocaleModelResolver.whisperLanguage(of: locale) ?? "en"
        // Translation (Whisper's translate task: any language to English) needs a multilingual model; without a
        // language the model detects it.
        let multilingual = catalog.models.filter { $0.isTranscriptionModel && $0.languages.count > 1 }
            .min { ($0.size, $0.id) < ($1.size, $1.id) }
        detectsLanguage = language == nil && (task == .translate || configuration.detectsLanguage)

        // Model: a catalog id, or an alias / nothing for the default.
        let requested = upload.field("model")?.trimmingCharacters(in: .whitespaces) ?? ""
        if task == .translate {
            if !ServedModel.meansDefault(requested) && catalog.model(requested)?.isTranscriptionModel != true {
                throw APIError.unknownModel(requested)
            }
            let named = ServedModel.meansDefault(requested) ? configuration.defaultModelID : requested
            if let named, let model = catalog.model(named), model.isTranscriptionModel, model.languages.count > 1 {
                modelID = named
            } else if !ServedModel.meansDefault(requested) && catalog.model(requested) != nil {
                throw APIError(.badRequest, "The model `\(requested)` is English-only and cannot translate; translation "
                               + "needs a multilingual model such as \(multilingual?.id ?? "whisper-base").",
                               param: "model", code: "unsupported_model")
            } else if let multilingual {
                modelID = multilingual.id
            } else {
                throw APIError(.badRequest, "This server's catalog has no multilingual model to translate with.",
                               param: "model", code: "unsupported_model")
            }
        } else if detectsLanguage && ServedModel.meansDefault(requested) && configuration.defaultModelID == nil {
            guard let multilingual else {
                throw APIError(.badRequest, "This server's catalog has no multilingual model to detect the language "
                               + "with; give the `language` field.", param: "language", code: "unsupported_language")
            }
            let installed = Set(configuration.store.installedModelIDs)
            modelID = catalog.models.filter { $0.isTranscriptionModel && $0.languages.count > 1 }
                .min { (installed.contains($0.id) ? 0 : 1, $0.size) < (installed.contains($1.id) ? 0 : 1, $1.size) }?.id
                ?? multilingual.id
            choosesModelByLanguage = true
        } else {
            switch ServedModel.modelID(requested: requested, locale: locale, configuration: configuration) {
            case .success(let id):
                modelID = id
            case .failure(.unknownModel):
                throw APIError.unknownModel(requested)
            case .failure(.noModelForLanguage):
                throw APIError(.badRequest, "No model transcribes \(locale.identifier).", param: "language",
                               code: "unsupported_language")
            case .failure(.languageNotSpoken(let languages)):
                throw APIError(.badRequest, "The model `\(requested)` does not transcribe \(whisperLanguage); its "
                               + "languages: \(languages.joined(separator: ", ")).", param: "language",
                               code: "unsupported_language")
            }
        }

        // An English-only model named (or the server's default) transcribes whatever the language: detection would
        // only warn, and the server has no one to warn.
        if task == .transcribe && !choosesModelByLanguage, let model = catalog.model(modelID), model.languages == ["en"] {
            detectsLanguage = false
        }

        let formatName = upload.field("response_format")?.trimmingCharacters(in: .whitespaces) ?? "json"
        guard let format = ResponseFormat(rawValue: formatName.isEmpty ? "json" : formatName) else {
            throw APIError(.badRequest, "response_format must be one of json, text, srt, vtt, verbose_json; got `\(formatName)`.",
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
    }

    /// The library's options for this request.
    func options(_ configuration: ServerConfiguration) -> FileTranscriber.Options {
        FileTranscriber.Options(
            locale: locale, modelID: choosesModelByLanguage ? nil : modelID, beamSize: configuration.beamSize,
            wordTimestamps: (wordTimestamps && format == .verboseJSON) || format == .srt || format == .vtt,
            detectsSpeech: configuration.detectsSpeech, computeType: configuration.computeType,
            contextualStrings: hotwords, prompt: prompt, temperatures: temperature.flatMap { $0 > 0 ? [$0] : nil },
            detectsLanguage: detectsLanguage, task: task == .translate ? .translate : .transcribe)
    }
}
