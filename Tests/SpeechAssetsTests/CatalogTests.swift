import Foundation
import Testing
@testable import SpeechAssets

@Suite struct CatalogTests {
    @Test func builtInCatalogPinsEveryFile() throws {
        let catalog = ModelCatalog.builtIn
        #expect(Set(catalog.models.map(\.id)).isSuperset(of: ["whisper-tiny.en", "whisper-base", "silero-vad"]))
        for model in catalog.models {
            // An entry only the Hugging Face Hub serves leaves its files to the repository (checked against the
            // Hub's hashes at install) and says how large it is.
            #expect(!model.files.isEmpty || model.isHubSourced, "\(model.id) lists no files")
            #expect(!model.files.isEmpty || (model.approximateSize ?? 0) > 0, "\(model.id) has no size")
            #expect(!model.sources.isEmpty, "\(model.id) has no source")
            for file in model.files {
                #expect(file.sha256.count == 64 && file.sha256.allSatisfy(\.isHexDigit), "\(model.id)/\(file.name)")
                #expect(file.size > 0)
            }
        }
        let tiny = try #require(catalog.model("whisper-tiny.en"))
        #expect(tiny.languages == ["en"])
        #expect(tiny.files.first { $0.name == "model.bin" }?.sha256
                == "1a5afae06a4db91c975c9a9d78be5cc110ee4ea022ad57d55492e4550e936b2a")
        let base = try #require(catalog.model("whisper-base"))
        #expect(base.languages.count == 99)
        #expect(base.files.first { $0.name == "model.bin" }?.size == 145_217_532)
        let vad = try #require(catalog.model("silero-vad"))
        #expect(vad.files.map(\.name).contains("silero_vad_16k.safetensors"))
        #expect(!vad.isTranscriptionModel)
    }

    @Test("the Hub's published conversions are in the catalog; the defaults stay those the Python index serves")
    func hubModelsAndDefaults() throws {
        let catalog = ModelCatalog.builtIn
        for id in ["whisper-small", "whisper-small.en", "whisper-medium", "whisper-medium.en", "whisper-large-v3",
                   "whisper-large-v3-turbo", "distil-whisper-small.en", "distil-whisper-large-v3.5"] {
            let model = try #require(catalog.model(id), "\(id)")
            #expect(model.isHubSourced && model.isTranscriptionModel && model.problem() == nil, "\(id)")
            #expect(model.languages == ["en"] || model.languages.count >= 99, "\(id)")
        }
        // The two the Python index serves keep it first, the Hub beside it.
        for id in ["whisper-tiny.en", "whisper-base"] {
            let sources = try #require(catalog.model(id)).sources
            guard case .pythonPackage = sources.first, case .huggingFace = sources.last else {
                Issue.record("\(id): \(sources.map(\.summary))")
                continue
            }
        }
        // `hf:` names the catalog entry serving that repository, whatever the letter case.
        #expect(catalog.model("hf:systran/faster-whisper-small")?.id == "whisper-small")
        let resolver = LocaleModelResolver(catalog: catalog)
        #expect(resolver.modelID(for: Locale(identifier: "en-US")) == "moonshine-base-en")
        #expect(resolver.modelID(for: Locale(identifier: "fr-FR")) == "whisper-base")
        // Cantonese: only large-v3's vocabulary has it; the smaller of its two models.
        #expect(resolver.modelID(for: Locale(identifier: "yue")) == "whisper-large-v3-turbo")
    }

    @Test("every built-in speech model has an accuracy class; the larger sizes come first, the defaults share the last")
    func accuracyClasses() throws {
        let catalog = ModelCatalog.builtIn
        for model in catalog.models where model.isTranscriptionModel {
            #expect(model.accuracyClass != nil, "\(model.id)")
        }
        let order = ["whisper-large-v3", "whisper-large-v3-turbo", "whisper-medium", "whisper-small", "whisper-base"]
        let classes = try order.map { try #require(catalog.model($0)?.accuracyClass) }
        #expect(classes == classes.sorted() && Set(classes).count == order.count, "\(classes)")
        #expect(catalog.model("whisper-tiny.en")?.accuracyClass == catalog.model("whisper-base")?.accuracyClass)
    }

    @Test func catalogRoundTripsThroughJSON() throws {
        let data = try JSONEncoder().encode(ModelCatalog.builtIn)
        let decoded = try JSONDecoder().decode(ModelCatalog.self, from: data)
        #expect(decoded == ModelCatalog.builtIn)
    }

    @Test func unknownSourceTypeIsAClearError() throws {
        let json = #"{"models":[{"id":"x","family":"whisper","languages":["en"],"files":[],"sources":[{"type":"ftp"}]}]}"#
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("bad-catalog-\(UUID()).json")
        try Data(json.utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        #expect {
            try ModelCatalog(contentsOf: url)
        } throws: { error in
            guard case let .invalidCatalog(_, reason) = error as? ModelAssetError else { return false }
            return reason.contains("ftp")
        }
    }

    @Test("English defaults to Moonshine, to whisper-tiny.en for a request with an initial prompt or alternatives; other languages to whisper-base")
    func englishDefaultsToMoonshineOthersToBase() {
        let resolver = LocaleModelResolver(catalog: .builtIn)
        #expect(resolver.modelID(for: Locale(identifier: "en-US")) == "moonshine-base-en")
        #expect(resolver.modelID(for: Locale(identifier: "en_GB")) == "moonshine-base-en")
        #expect(resolver.modelID(for: Locale(identifier: "en-US"), serving: .prompt) == "whisper-tiny.en")
        #expect(resolver.modelID(for: Locale(identifier: "en-US"), serving: .alternatives) == "whisper-tiny.en")
        #expect(resolver.modelID(for: Locale(identifier: "fr-FR"), serving: .all) == "whisper-base")
        #expect(resolver.modelID(for: Locale(identifier: "fr-FR")) == "whisper-base")
        #expect(resolver.modelID(for: Locale(identifier: "ja")) == "whisper-base")
        #expect(resolver.modelID(for: Locale(identifier: "jv-ID")) == "whisper-base")  // Whisper calls it "jw"
        #expect(resolver.modelID(for: Locale(identifier: "tlh")) == nil)  // Klingon: no model
    }

    @Test func supportedLocalesIncludeRegionsAndEquivalents() throws {
        let resolver = LocaleModelResolver(catalog: .builtIn)
        let identifiers = Set(resolver.supportedLocales.map { $0.identifier(.bcp47) })
        #expect(identifiers.isSuperset(of: ["en", "en-US", "en-GB", "fr-FR", "de-DE", "pt-BR", "zh-CN", "zh-TW"]))
        // Chinese by region, as apps ask for it (the system lists zh-Hans-CN, zh-Hant-TW).
        for region in ["zh-CN", "zh-TW", "zh-HK"] {
            #expect(resolver.supportedLocale(equivalentTo: Locale(identifier: region))?.identifier(.bcp47) == region)
        }
        #expect(!identifiers.contains { $0.hasPrefix("tlh") })
        // Exact match.
        #expect(resolver.supportedLocale(equivalentTo: Locale(identifier: "fr-CA"))?.identifier(.bcp47) == "fr-CA")
        // Same language elsewhere: a preferred (installed/reserved) one first, else the likely region.
        let unknownRegion = Locale(identifier: "en-AQ")
        #expect(resolver.supportedLocale(equivalentTo: unknownRegion, preferring: [Locale(identifier: "en-GB")])?
            .identifier(.bcp47) == "en-GB")
        #expect(resolver.supportedLocale(equivalentTo: unknownRegion)?.identifier(.bcp47) == "en-US")
        #expect(resolver.supportedLocale(equivalentTo: Locale(identifier: "tlh-US")) == nil)
    }

    @Test func modelIDsAreSafeFolderNames() {
        #expect(ModelStore.isValidID("whisper-tiny.en"))
        #expect(!ModelStore.isValidID("../etc"))
        #expect(!ModelStore.isValidID("a/b"))
        #expect(!ModelStore.isValidID(".hidden"))
        #expect(!ModelStore.isValidID(""))
    }

    @Test func defaultHomeFollowsTheEnvironmentOrder() {
        // Only checks the current environment's answer is one of the documented places.
        let home = ModelStore.defaultHome().path
        let environment = ProcessInfo.processInfo.environment
        if let explicit = environment["OPENSPEECH_HOME"], !explicit.isEmpty {
            #expect(home == URL(fileURLWithPath: explicit).path)
        } else if let xdg = environment["XDG_DATA_HOME"], !xdg.isEmpty {
            #expect(home.hasSuffix("/openspeech"))
        } else {
            #expect(home.hasSuffix("/.local/share/openspeech"))
        }
    }
}
