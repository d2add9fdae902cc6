import Foundation
import Testing
@testable import OpenSpeech
import SpeechAssets
import SpeechEngine

/// The transcription decided once (issue 42): `TranscriptionPlan` as a table of what was asked and what is installed
/// against the model that runs, how the language is decided and what must be installed. No model is loaded.
@Suite struct TranscriptionPlanTests {
    static let catalog = ModelCatalog.builtIn
    static let english = Locale(identifier: "en-US"), french = Locale(identifier: "fr-FR")

    static func plan(_ locale: Locale = TranscriptionPlanTests.english, model: String? = nil, task: SpeechTranscriber.TranscriptionTask = .transcribe,
                     detects: Bool = false, perWindow: Bool = false, speech: Bool = true, live: Bool = false,
                     needs: CatalogModel.Capabilities = [], installed: Set<String>) throws -> TranscriptionPlan {
        try TranscriptionPlan(.init(locale: locale, modelID: model, task: task, detectsLanguage: detects,
                                    detectsLanguagePerWindow: perWindow, detectsSpeech: speech, favoursLatency: live,
                                    needs: needs),
                              catalog: catalog, installed: installed)
    }

    struct Row: Sendable, CustomStringConvertible {
        var name: String
        var plan: @Sendable () throws -> TranscriptionPlan
        var runs: String
        var language: TranscriptionPlan.LanguageDecision
        var installs: [String]
        var description: String { name }
    }

    static let all: Set<String> = ["moonshine-base-en", "whisper-tiny.en", "whisper-base", "silero-vad"]

    static let rows: [Row] = [
        Row(name: "English given, all installed: Moonshine, the English default",
            plan: { try plan(installed: all) }, runs: "moonshine-base-en", language: .given,
            installs: ["moonshine-base-en", "silero-vad"]),
        Row(name: "English with an initial prompt: the English model that takes one",
            plan: { try plan(needs: .prompt, installed: all) }, runs: "whisper-tiny.en", language: .given,
            installs: ["whisper-tiny.en", "silero-vad"]),
        Row(name: "English with alternatives: the English model that gives them",
            plan: { try plan(needs: .alternatives, installed: all) }, runs: "whisper-tiny.en", language: .given,
            installs: ["whisper-tiny.en", "silero-vad"]),
        Row(name: "English, installed before Moonshine was the default: whisper-tiny.en runs, Moonshine is what installs",
            plan: { try plan(installed: ["whisper-tiny.en", "silero-vad"]) }, runs: "whisper-tiny.en", language: .given,
            installs: ["moonshine-base-en", "silero-vad"]),
        Row(name: "English given, only the multilingual model installed: it runs, the English one is what installs",
            plan: { try plan(installed: ["whisper-base"]) }, runs: "whisper-base", language: .given,
            installs: ["moonshine-base-en", "silero-vad"]),
        Row(name: "the same with a prompt: the multilingual model runs, whisper-tiny.en is what installs",
            plan: { try plan(needs: .prompt, installed: ["whisper-base", "moonshine-base-en"]) }, runs: "whisper-base",
            language: .given, installs: ["whisper-tiny.en", "silero-vad"]),
        Row(name: "French given: the multilingual model; no detector asked: none required",
            plan: { try plan(french, speech: false, installed: all) }, runs: "whisper-base", language: .given,
            installs: ["whisper-base"]),
        Row(name: "no language, nothing installed: the multilingual model detects",
            plan: { try plan(detects: true, installed: []) }, runs: "whisper-base", language: .detectedFirst,
            installs: ["whisper-base", "silero-vad"]),
        Row(name: "no language, per window: the multilingual model detects and transcribes every window",
            plan: { try plan(detects: true, perWindow: true, installed: all) }, runs: "whisper-base",
            language: .detectedPerWindow, installs: ["whisper-base", "silero-vad"]),
        Row(name: "no language, the English-only model named: English, checked by the installed multilingual model",
            plan: { try plan(model: "whisper-tiny.en", detects: true, installed: all) }, runs: "whisper-tiny.en",
            language: .checkedForEnglish(checker: "whisper-base"), installs: ["whisper-tiny.en", "silero-vad"]),
        Row(name: "the same with no multilingual model installed: unchecked",
            plan: { try plan(model: "whisper-tiny.en", detects: true, perWindow: true, installed: ["whisper-tiny.en"]) },
            runs: "whisper-tiny.en", language: .checkedForEnglish(checker: nil), installs: ["whisper-tiny.en", "silero-vad"]),
        Row(name: "translation from English with no model named: the multilingual model",
            plan: { try plan(task: .translate, installed: all) }, runs: "whisper-base", language: .given,
            installs: ["whisper-base", "silero-vad"]),
        Row(name: "English given, more accurate models installed: the most accurate runs, the default is what installs",
            plan: { try plan(installed: all.union(["whisper-small", "whisper-large-v3-turbo", "whisper-medium.en"])) },
            runs: "whisper-large-v3-turbo", language: .given, installs: ["moonshine-base-en", "silero-vad"]),
        Row(name: "one accuracy class: English-only before multilingual, then the smaller",
            plan: { try plan(installed: ["whisper-small", "whisper-small.en", "distil-whisper-small.en"]) },
            runs: "distil-whisper-small.en", language: .given, installs: ["moonshine-base-en", "silero-vad"]),
        Row(name: "French: the most accurate multilingual model installed (an English-only one does not speak it)",
            plan: { try plan(french, installed: all.union(["whisper-medium", "distil-whisper-large-v3.5"])) },
            runs: "whisper-medium", language: .given, installs: ["whisper-base", "silero-vad"]),
        Row(name: "live: the default runs when installed, for speed",
            plan: { try plan(live: true, installed: all.union(["whisper-large-v3-turbo"])) },
            runs: "moonshine-base-en", language: .given, installs: ["moonshine-base-en", "silero-vad"]),
        Row(name: "live with contextual strings: the default that takes them, when installed",
            plan: { try plan(live: true, needs: .prompt, installed: all.union(["whisper-large-v3-turbo"])) },
            runs: "whisper-tiny.en", language: .given, installs: ["whisper-tiny.en", "silero-vad"]),
        Row(name: "live without the default installed: the most accurate installed model",
            plan: { try plan(live: true, installed: ["whisper-base", "whisper-small"]) },
            runs: "whisper-small", language: .given, installs: ["moonshine-base-en", "silero-vad"]),
        Row(name: "Moonshine installed with more accurate Whisper models: the most accurate runs",
            plan: { try plan(installed: all.union(["whisper-small.en"])) }, runs: "whisper-small.en", language: .given,
            installs: ["moonshine-base-en", "silero-vad"]),
        Row(name: "live with Moonshine the only English model installed: it runs",
            plan: { try plan(live: true, installed: ["moonshine-base-en"]) }, runs: "moonshine-base-en", language: .given,
            installs: ["moonshine-base-en", "silero-vad"]),
        Row(name: "Moonshine named: it runs, English",
            plan: { try plan(model: "moonshine-base-en", installed: []) }, runs: "moonshine-base-en", language: .given,
            installs: ["moonshine-base-en", "silero-vad"]),
        Row(name: "a model named runs whatever is installed",
            plan: { try plan(french, model: "whisper-base", installed: []) }, runs: "whisper-base", language: .given,
            installs: ["whisper-base", "silero-vad"]),
    ]

    @Test("the resolution table: what was asked and what is installed → the model that runs, the language, the installs",
          arguments: rows)
    func resolution(_ row: Row) throws {
        let plan = try row.plan()
        #expect(plan.modelID == row.runs)
        #expect(plan.language == row.language)
        #expect(plan.requiredModelIDs == row.installs)
    }

    @Test("after detection: the model named, else the most accurate installed model that speaks the detected language and serves the request")
    func detectedLanguageModel() throws {
        let detecting = try Self.plan(detects: true, installed: Self.all)
        #expect(detecting.modelID(forDetected: "en") == "moonshine-base-en")
        let prompted = try Self.plan(detects: true, needs: .prompt, installed: Self.all)
        #expect(prompted.modelID(forDetected: "en") == "whisper-tiny.en", "a prompt: the English model that takes one")
        #expect(detecting.modelID(forDetected: "fr") == "whisper-base")
        let more = try Self.plan(detects: true, installed: Self.all.union(["whisper-small", "distil-whisper-large-v3.5"]))
        #expect(more.modelID == "whisper-base", "the smallest installed multilingual model detects")
        #expect(more.modelID(forDetected: "en") == "distil-whisper-large-v3.5")
        #expect(more.modelID(forDetected: "de") == "whisper-small")
        #expect(detecting.modelID(forDetected: nil) == "whisper-base")
        #expect(try Self.plan(detects: true, installed: ["whisper-base"]).modelID(forDetected: "en") == "whisper-base")
        #expect(try Self.plan(task: .translate, detects: true, installed: Self.all).modelID(forDetected: "en") == "whisper-base")
        #expect(try Self.plan(model: "whisper-base", detects: true, installed: Self.all).modelID(forDetected: "en") == "whisper-base")
    }

    @Test("refusals, typed: an unknown model, translation by an English-only one, a language no model speaks")
    func refusals() {
        #expect(throws: ModelAssetError.self) { try Self.plan(model: "base", installed: Self.all) }
        #expect(throws: SFSpeechError.self) { try Self.plan(model: "whisper-tiny.en", task: .translate, installed: Self.all) }
        #expect(throws: SFSpeechError.self) { try Self.plan(Locale(identifier: "tlh"), installed: Self.all) }
        // A model of the catalog that does not transcribe, refused before anything installs; and translation by
        // Moonshine (English only).
        #expect(throws: SFSpeechError.self) { try Self.plan(model: "silero-vad", installed: Self.all) }
        #expect(throws: SFSpeechError.self) { try Self.plan(model: "moonshine-base-en", task: .translate, installed: Self.all) }
    }

    @Test("every model the plan may choose is of a family the engine loads, and the engine's families are the catalog's")
    func familiesLoad() {
        let families = Set(SpeechModelFamily.allCases.map(\.rawValue))
        #expect(CatalogModel.transcriptionFamilies == families)
        for model in Self.catalog.models where model.isTranscriptionModel {
            #expect(SpeechModelFamily(rawValue: model.family) != nil, "\(model.id): \(model.family)")
        }
    }
}
