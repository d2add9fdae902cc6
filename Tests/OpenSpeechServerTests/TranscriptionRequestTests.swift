import Foundation
import Logging
@testable import OpenSpeechServer
import OpenSpeech
import SpeechAssets
import Testing
import TestSupport

/// The REST routes' `model` and `language` fields read into a request (no transcription): the model the library's
/// plan runs, or the API's error for a request no model serves, with the test home's models installed (whisper-base,
/// multilingual; whisper-tiny.en, English-only).
@Suite struct TranscriptionRequestTests {
    /// The request `fields` make, and the model its plan runs.
    static func request(_ fields: [String: String], task: TranscriptionRequest.Operation = .transcribe,
                        defaultModel: String? = nil,
                        detects: Bool = false) throws -> (request: TranscriptionRequest, modelID: String) {
        let configuration = ServerConfiguration(defaultModelID: defaultModel, store: ModelStore(home: TestModels.home),
                                                detectsLanguage: detects)
        let upload = MultipartUpload(fields: fields.mapValues { [$0] }, file: nil, folder: Lease {},
                                     directory: FileManager.default.temporaryDirectory)
        let request = try TranscriptionRequest(upload, task: task, configuration: configuration)
        return (request, try request.plannedModelID(configuration))
    }

    /// The API error code `fields` are refused with (nil: accepted).
    static func refusal(_ fields: [String: String], task: TranscriptionRequest.Operation = .transcribe,
                        defaultModel: String? = nil) -> String? {
        do {
            _ = try request(fields, task: task, defaultModel: defaultModel)
            return nil
        } catch let error as APIError {
            return error.code
        } catch {
            return "\(error)"
        }
    }

    @Test("which model runs: the one named, the server's default where it fits, else the plan's choice")
    func modelThatRuns() async throws {
        _ = try await TestModels.directory(for: "whisper-base")
        _ = try await TestModels.directory(for: "whisper-tiny.en")
        // A catalog id is the model that runs; an OpenAI name means the server's default.
        #expect(try Self.request(["model": "whisper-base", "language": "en"]).modelID == "whisper-base")
        #expect(try Self.request(["model": "whisper-1", "language": "en"], defaultModel: "whisper-base").modelID == "whisper-base")
        // The server's English-only default cannot serve French: the plan's French model runs.
        #expect(try Self.request(["model": "whisper-1", "language": "fr"], defaultModel: "whisper-tiny.en").modelID == "whisper-base")
        // Translation with an English-only default: the installed multilingual model, the language detected.
        let translation = try Self.request([:], task: .translate, defaultModel: "whisper-tiny.en")
        #expect(translation.modelID == "whisper-base" && translation.request.detectsLanguage)
        // Detection with no model named: the multilingual model hears the language, the plan picks the one to write it.
        let detected = try Self.request([:], detects: true)
        #expect(detected.modelID == "whisper-base" && detected.request.requestedModelID == nil
                && detected.request.detectsLanguage)
        // An English-only model named on a detecting server writes English without detection.
        let english = try Self.request(["model": "whisper-tiny.en"], detects: true)
        #expect(english.modelID == "whisper-tiny.en" && !english.request.detectsLanguage)
    }

    @Test("a model only the Hugging Face Hub serves is not downloaded on a request: refused until installed")
    func hubModelsAreNotInstalledForARequest() async throws {
        let home = try makeTemporaryDirectory("openspeech-hub-refusal")
        defer { try? FileManager.default.removeItem(at: home) }
        var store = ModelStore(home: home)
        // Nothing listens there: a download would fail with another error than the refusal.
        store.hubEnvironment = HubEnvironment(endpoint: "http://127.0.0.1:9", cacheDirectory: home.appendingPathComponent("hf"))
        let hubOnly = try #require(store.catalog.models.first { $0.isHubSourced && $0.isTranscriptionModel })
        let configuration = ServerConfiguration(store: store)
        #expect(configuration.installsMissingModels)
        let transcriber = FileTranscriber(options: .init(locale: Locale(identifier: "en-US"), modelID: hubOnly.id,
                                                         detectsSpeech: false), store: store)
        await #expect { try await configuration.prepareModels(for: transcriber, logger: Logger(label: "test")) } throws: {
            ($0 as? APIError)?.code == "model_not_installed"
        }
        #expect(store.installedDirectory(for: hubOnly.id) == nil)
    }

    @Test("requests no model serves get the API's codes")
    func refusals() {
        #expect(Self.refusal(["model": "whisper-9"]) == "model_not_found")
        #expect(Self.refusal(["model": "whisper-9"], task: .translate) == "model_not_found")
        #expect(Self.refusal(["model": "whisper-tiny.en"], task: .translate) == "unsupported_model")
        #expect(Self.refusal(["model": "whisper-tiny.en", "language": "fr"]) == "unsupported_language")
        #expect(Self.refusal(["language": "xx"]) == "unsupported_language")
        #expect(Self.refusal(["model": "whisper-base", "language": "fr"]) == nil)
    }
}
