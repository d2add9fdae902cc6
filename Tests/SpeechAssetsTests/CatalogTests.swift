import Foundation
import Testing
@testable import SpeechAssets

@Suite struct CatalogTests {
    @Test func builtInCatalogPinsEveryFile() throws {
        let catalog = ModelCatalog.builtIn
        #expect(Set(catalog.models.map(\.id)).isSuperset(of: ["whisper-tiny.en", "whisper-base", "silero-vad"]))
        for model in catalog.models {
            #expect(!model.files.isEmpty, "\(model.id) lists no files")
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

    @Test func englishDefaultsToTinyEnglishOthersToBase() {
        let resolver = LocaleModelResolver(catalog: .builtIn)
        #expect(resolver.modelID(for: Locale(identifier: "en-US")) == "whisper-tiny.en")
        #expect(resolver.modelID(for: Locale(identifier: "en_GB")) == "whisper-tiny.en")
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
