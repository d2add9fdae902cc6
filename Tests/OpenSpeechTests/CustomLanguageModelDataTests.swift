import Foundation
@testable import OpenSpeech
import Testing
import TestSupport

/// Custom language model data (`SFCustomLanguageModelData`) in the shape Apple's custom-vocabulary sample writes
/// it, template expansion, and export → `SFSpeechLanguageModel.prepareCustomLanguageModel` → the vocabulary
/// recognition is given. No model needed.
@Suite struct CustomLanguageModelDataTests {
    typealias LM = SFCustomLanguageModelData

    /// The sample's training data: a phrase, templates over classes, custom terms; `if`-`else` and `for` loops in
    /// both builders.
    static func chessData(includeOpenings: Bool = true, ranks: ClosedRange<Int> = 1...8) -> SFCustomLanguageModelData {
        SFCustomLanguageModelData(locale: Locale(identifier: "en_US"), identifier: "com.example.chess",
                                  version: "1.0") {
            SFCustomLanguageModelData.PhraseCount(phrase: "Play the Albin counter gambit", count: 10)
            if includeOpenings {
                SFCustomLanguageModelData.PhraseCount(phrase: "Play the Sicilian defence", count: 7)
            } else {
                SFCustomLanguageModelData.PhraseCount(phrase: "Resign", count: 1)
            }
            for opening in ["Caro-Kann", "Nimzo-Indian"] {
                SFCustomLanguageModelData.PhraseCount(phrase: "Play the \(opening)", count: 3)
            }
            SFCustomLanguageModelData.PhraseCountsFromTemplates(classes: [
                "piece": ["pawn", "rook", "knight", "bishop", "queen", "king"],
                "royal": ["queen", "king"],
                "rank": ranks.map { String($0) },
            ]) {
                SFCustomLanguageModelData.TemplatePhraseCountGenerator.Template(
                    "<piece> to <royal> <piece> <rank>", count: 10_000)
                if includeOpenings {
                    SFCustomLanguageModelData.TemplatePhraseCountGenerator.Template("castle <royal> side", count: 20)
                }
                for verb in ["take", "capture"] {
                    SFCustomLanguageModelData.TemplatePhraseCountGenerator.Template("\(verb) the <piece>", count: 60)
                }
            }
            SFCustomLanguageModelData.CustomPronunciation(grapheme: "Winawer", phonemes: ["w I n aU @`"])
            SFCustomLanguageModelData.CustomPronunciation(grapheme: "Tartakower", phonemes: ["t A r t @ k aU @`"])
        }
    }

    static func phrases(of generator: LM.PhraseCountGenerator) async throws -> [LM.PhraseCount] {
        var all: [LM.PhraseCount] = []
        for try await phraseCount in generator { all.append(phraseCount) }
        return all
    }

    @Test("Apple's sample shape: export, prepare, and the vocabulary comes back, terms first")
    func sampleRoundTrip() async throws {
        let folder = try makeTemporaryDirectory("custom-lm")
        defer { try? FileManager.default.removeItem(at: folder) }
        let asset = folder.appendingPathComponent("chess.bin")
        try await Self.chessData().export(to: asset)

        let configuration = SFSpeechLanguageModel.Configuration(
            languageModel: folder.appendingPathComponent("lm/chess.lm"),
            vocabulary: folder.appendingPathComponent("lm/chess.vocab"))
        try await SFSpeechLanguageModel.prepareCustomLanguageModel(for: asset, clientIdentifier: "com.example.chess",
                                                                   configuration: configuration)
        #expect(FileManager.default.fileExists(atPath: configuration.languageModel.path))
        #expect(FileManager.default.fileExists(atPath: configuration.vocabulary!.path))

        let strings = try CustomLanguageModelVocabulary.contextualStrings(for: configuration, limit: 10,
                                                                          characterLimit: 10_000)
        #expect(strings.count == 10)
        // Terms, then the most frequent phrases: the template's first 208 phrases have 18 of its 10,000.
        #expect(Array(strings.prefix(4)) == ["Winawer", "Tartakower", "pawn to queen pawn 1", "pawn to queen pawn 2"])

        // Every phrase made it into the model, once, with its summed count.
        let model = try JSONDecoder().decode(CustomLanguageModelFiles.LanguageModel.self,
                                             from: Data(contentsOf: configuration.languageModel))
        let counts = Dictionary(uniqueKeysWithValues: model.phrases.map { ($0.phrase, $0.count) })
        let distinct = 576 + 2 + 12 + 4
        #expect(counts.count == distinct)
        #expect(counts["Play the Albin counter gambit"] == 10)
        #expect(counts["castle king side"] == 10)
        #expect(counts["capture the king"] == 10)
        #expect(counts["knight to queen bishop 3"] == 17 || counts["knight to queen bishop 3"] == 18)
        let total = 10 + 7 + 6 + 10_000 + 20 + 120
        #expect(model.phrases.map(\.count).reduce(0, +) == total)
        #expect(model.terms.map(\.grapheme) == ["Winawer", "Tartakower"])
        #expect(model.terms[0].phonemes == ["w I n aU @`"])
        #expect(model.clientIdentifier == "com.example.chess")

        // The default caps bound the list; terms always come first.
        let capped = try CustomLanguageModelVocabulary.contextualStrings(for: configuration)
        #expect(capped.count <= CustomLanguageModelVocabulary.defaultLimit)
        #expect(capped.joined(separator: ", ").count <= CustomLanguageModelVocabulary.defaultCharacterLimit)
        #expect(capped.prefix(2) == ["Winawer", "Tartakower"])
    }

    @Test("if-else and for in the builders take the branch and iterations given")
    func builderControlFlow() async throws {
        let folder = try makeTemporaryDirectory("custom-lm")
        defer { try? FileManager.default.removeItem(at: folder) }
        let asset = folder.appendingPathComponent("chess.json")
        try await Self.chessData(includeOpenings: false, ranks: 1...2).export(to: asset)
        let file = try JSONDecoder().decode(CustomLanguageModelFiles.TrainingData.self,
                                            from: Data(contentsOf: asset))
        let phrases = Set(file.phraseCounts.map(\.phrase))
        #expect(phrases.contains("Resign"))
        #expect(!phrases.contains("Play the Sicilian defence"))
        #expect(phrases.contains("Play the Caro-Kann") && phrases.contains("Play the Nimzo-Indian"))
        #expect(!phrases.contains { $0.hasPrefix("castle") })
        #expect(phrases.contains("capture the rook"))
        let combinations = 6 * 2 * 6 * 2
        #expect(file.phraseCounts.filter { $0.phrase.contains(" to ") }.count == combinations)
        #expect(file.locale == "en-US" && file.identifier == "com.example.chess" && file.version == "1.0")
        #expect(file.terms.count == 2)
    }

    @Test("templates expand to every combination, the count shared among them")
    func templateExpansion() async throws {
        let generator = LM.TemplatePhraseCountGenerator()
        generator.define(className: "piece", values: ["pawn", "rook"])
        generator.define(className: "square", values: ["a1", "b2", "c3"])
        generator.insert(template: "move <piece> to <square>", count: 12)
        generator.insert(template: "<piece>  takes <piece>", count: 8)
        generator.insert(template: "<square> or <square>", count: 4)
        generator.insert(template: "a <b> literal <", count: 5)
        generator.define(className: "b", values: ["<b>"])
        let phrases = try await Self.phrases(of: generator)

        #expect(Array(phrases.prefix(6)) == [
            .init(phrase: "move pawn to a1", count: 2), .init(phrase: "move pawn to b2", count: 2),
            .init(phrase: "move pawn to c3", count: 2), .init(phrase: "move rook to a1", count: 2),
            .init(phrase: "move rook to b2", count: 2), .init(phrase: "move rook to c3", count: 2),
        ])
        // A class used twice varies independently; spacing is normalized.
        #expect(Array(phrases[6..<10]) == [
            .init(phrase: "pawn takes pawn", count: 2), .init(phrase: "pawn takes rook", count: 2),
            .init(phrase: "rook takes pawn", count: 2), .init(phrase: "rook takes rook", count: 2),
        ])
        // 9 combinations share 4: only the first 4, one each.
        #expect(Array(phrases[10..<14]) == [
            .init(phrase: "a1 or a1", count: 1), .init(phrase: "a1 or b2", count: 1),
            .init(phrase: "a1 or c3", count: 1), .init(phrase: "b2 or a1", count: 1),
        ])
        // Values are not expanded again; an unclosed "<" is text.
        #expect(Array(phrases[14...]) == [.init(phrase: "a <b> literal <", count: 5)])

        // A remainder goes to the first phrases.
        let uneven = LM.TemplatePhraseCountGenerator()
        uneven.define(className: "x", values: ["a", "b", "c"])
        uneven.insert(template: "<x>", count: 7)
        #expect(try await Self.phrases(of: uneven).map(\.count) == [3, 2, 2])

        // The builder form gives the same as define and insert.
        let data = LM(locale: Locale(identifier: "en-US"), identifier: "t", version: "1") {
            LM.PhraseCountsFromTemplates(classes: ["piece": ["pawn", "rook"], "square": ["a1", "b2", "c3"]]) {
                LM.TemplatePhraseCountGenerator.Template("move <piece> to <square>", count: 12)
            }
        }
        let same = LM(locale: Locale(identifier: "en-US"), identifier: "t", version: "1")
        let manual = LM.TemplatePhraseCountGenerator()
        manual.define(className: "piece", values: ["pawn", "rook"])
        manual.define(className: "square", values: ["a1", "b2", "c3"])
        manual.insert(template: "move <piece> to <square>", count: 12)
        same.insert(phraseCountGenerator: manual)
        #expect(data == same)
    }

    @Test("a template naming an undefined class throws undefinedTemplateClassName, on iteration and export")
    func undefinedClass() async throws {
        let generator = LM.TemplatePhraseCountGenerator()
        generator.define(className: "piece", values: ["pawn"])
        generator.insert(template: "move <piece> to <square>", count: 3)
        do {
            _ = try await Self.phrases(of: generator)
            Issue.record("no error")
        } catch let error as SFSpeechError {
            #expect(error.code == .undefinedTemplateClassName)
            #expect(error.message.contains("<square>") && error.message.contains("define(className:values:)"))
        }
        let folder = try makeTemporaryDirectory("custom-lm")
        defer { try? FileManager.default.removeItem(at: folder) }
        let data = LM(locale: Locale(identifier: "en-US"), identifier: "t", version: "1")
        data.insert(phraseCountGenerator: generator)
        await #expect(throws: SFSpeechError.self) { try await data.export(to: folder.appendingPathComponent("x.bin")) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }

    @Test("export to a path that cannot be written throws a clear error and leaves no file")
    func exportFailure() async throws {
        let folder = try makeTemporaryDirectory("custom-lm")
        defer { try? FileManager.default.removeItem(at: folder) }
        let data = Self.chessData()

        // A folder on the path is a file.
        let file = folder.appendingPathComponent("plain-file")
        try "not a folder".write(to: file, atomically: true, encoding: .utf8)
        let underFile = file.appendingPathComponent("sub/chess.bin")
        do {
            try await data.export(to: underFile)
            Issue.record("no error")
        } catch let error as SFSpeechError {
            #expect(error.message.contains(underFile.path))
            #expect(error.message.contains("Choose a folder you can write to"))
        }

        // The destination is a folder.
        let destination = folder.appendingPathComponent("a-folder")
        try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: true)
        try "keep".write(to: destination.appendingPathComponent("inside"), atomically: true, encoding: .utf8)
        do {
            try await data.export(to: destination)
            Issue.record("no error")
        } catch let error as SFSpeechError {
            #expect(error.message.contains("it is a folder"))
        }

        // Nothing new, no temporary file left behind.
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["a-folder", "plain-file"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: destination.path) == ["inside"])
        #expect(try String(contentsOf: file, encoding: .utf8) == "not a folder")

        // Exporting over an existing file replaces it whole.
        let asset = folder.appendingPathComponent("chess.bin")
        try "old".write(to: asset, atomically: true, encoding: .utf8)
        try await data.export(to: asset)
        #expect(try String(contentsOf: asset, encoding: .utf8).contains("Albin counter gambit"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
                == ["a-folder", "chess.bin", "plain-file"])
    }

    @Test("preparing a missing, damaged or foreign file throws malformedSupplementalModel and writes nothing")
    func prepareFailure() async throws {
        let folder = try makeTemporaryDirectory("custom-lm")
        defer { try? FileManager.default.removeItem(at: folder) }
        let configuration = SFSpeechLanguageModel.Configuration(
            languageModel: folder.appendingPathComponent("out.lm"), vocabulary: folder.appendingPathComponent("out.vocab"))

        let missing = folder.appendingPathComponent("missing.bin")
        let damaged = folder.appendingPathComponent("damaged.bin")
        try Data([0xde, 0xad, 0xbe, 0xef, 0x7b]).write(to: damaged)
        let foreign = folder.appendingPathComponent("foreign.json")
        try #"{"format": "something-else", "phrases": []}"#.write(to: foreign, atomically: true, encoding: .utf8)
        let truncated = folder.appendingPathComponent("truncated.json")
        try #"{"format": "openspeech.custom-language-model-data", "formatVersion": 1, "locale": "en-US"}"#
            .write(to: truncated, atomically: true, encoding: .utf8)

        for (asset, expected) in [(missing, "There is no custom language model data at"),
                                  (damaged, "is not a custom language model data file"),
                                  (foreign, "a file of kind \"something-else\""),
                                  (truncated, "is damaged")] {
            do {
                try await SFSpeechLanguageModel.prepareCustomLanguageModel(for: asset, clientIdentifier: "c",
                                                                           configuration: configuration)
                Issue.record("no error for \(asset.lastPathComponent)")
            } catch let error as SFSpeechError {
                #expect(error.code == .malformedSupplementalModel)
                #expect(error.message.contains(expected), "\(error.message)")
                #expect(error.message.contains("SFCustomLanguageModelData.export(to:)"))
            }
        }
        #expect(!FileManager.default.fileExists(atPath: configuration.languageModel.path))
        #expect(!FileManager.default.fileExists(atPath: configuration.vocabulary!.path))

        // Recognition with a model that was never prepared says what to do.
        do {
            _ = try CustomLanguageModelVocabulary.contextualStrings(for: configuration)
            Issue.record("no error")
        } catch let error as SFSpeechError {
            #expect(error.code == .malformedSupplementalModel)
            #expect(error.message.contains("prepareCustomLanguageModel"))
        }
    }

    @Test("phrases inserted twice add up; weight scales the cap; the cache and ignoresCache")
    func preparation() async throws {
        let folder = try makeTemporaryDirectory("custom-lm")
        defer { try? FileManager.default.removeItem(at: folder) }
        let data = LM(locale: Locale(identifier: "en-US"), identifier: "t", version: "1")
        data.insert(phraseCount: .init(phrase: "alpha", count: 2))
        data.insert(phraseCount: .init(phrase: "beta", count: 3))
        data.insert(phraseCount: .init(phrase: "  alpha ", count: 2))
        data.insert(phraseCount: .init(phrase: "never", count: 0))
        data.insert(phraseCount: .init(phrase: "gamma", count: 1))
        data.insert(term: .init(grapheme: "Zyxt", phonemes: ["z I k s t"]))
        data.insert(term: .init(grapheme: "Zyxt", phonemes: ["z aI k s t"]))
        let asset = folder.appendingPathComponent("t.bin")
        try await data.export(to: asset)

        let configuration = SFSpeechLanguageModel.Configuration(languageModel: folder.appendingPathComponent("t.lm"))
        try await SFSpeechLanguageModel.prepareCustomLanguageModel(for: asset, configuration: configuration)
        #expect(try CustomLanguageModelVocabulary.contextualStrings(for: configuration) == ["Zyxt", "alpha", "beta", "gamma"])
        let model = try JSONDecoder().decode(CustomLanguageModelFiles.LanguageModel.self,
                                             from: Data(contentsOf: configuration.languageModel))
        #expect(model.phrases == [.init(phrase: "alpha", count: 4), .init(phrase: "beta", count: 3),
                                  .init(phrase: "gamma", count: 1)])
        #expect(model.terms == [.init(grapheme: "Zyxt", phonemes: ["z I k s t", "z aI k s t"])])

        let half = SFSpeechLanguageModel.Configuration(languageModel: configuration.languageModel, vocabulary: nil,
                                                       weight: 0.5)
        #expect(try CustomLanguageModelVocabulary.contextualStrings(for: half, limit: 4) == ["Zyxt", "alpha"])
        let none = SFSpeechLanguageModel.Configuration(languageModel: configuration.languageModel, vocabulary: nil,
                                                       weight: 0)
        #expect(try CustomLanguageModelVocabulary.contextualStrings(for: none).isEmpty)
        #expect(try CustomLanguageModelVocabulary.contextualStrings(for: configuration, limit: 10, characterLimit: 12)
                == ["Zyxt", "alpha"])

        // Prepared from the same data for the same client: left as is, unless ignoresCache.
        var marked = try String(contentsOf: configuration.languageModel, encoding: .utf8)
        marked = marked.replacingOccurrences(of: "\"beta\"", with: "\"betamarked\"")
        try marked.write(to: configuration.languageModel, atomically: true, encoding: .utf8)
        try await SFSpeechLanguageModel.prepareCustomLanguageModel(for: asset, configuration: configuration)
        #expect(try CustomLanguageModelVocabulary.contextualStrings(for: configuration).contains("betamarked"))
        try await SFSpeechLanguageModel.prepareCustomLanguageModel(for: asset, configuration: configuration,
                                                                   ignoresCache: true)
        #expect(try CustomLanguageModelVocabulary.contextualStrings(for: configuration).contains("beta"))

        // The completion-handler form.
        let other = SFSpeechLanguageModel.Configuration(languageModel: folder.appendingPathComponent("other.lm"))
        let error: (any Error)? = await withCheckedContinuation { continuation in
            SFSpeechLanguageModel.prepareCustomLanguageModel(for: asset, clientIdentifier: "c", configuration: other,
                                                             ignoresCache: false) { continuation.resume(returning: $0) }
        }
        #expect(error == nil)
        #expect(try CustomLanguageModelVocabulary.contextualStrings(for: other).first == "Zyxt")
    }

    @Test("Codable and Hashable; supported phonemes")
    func codableAndPhonemes() throws {
        let data = Self.chessData()
        let decoded = try JSONDecoder().decode(SFCustomLanguageModelData.self, from: JSONEncoder().encode(data))
        #expect(decoded == data)
        #expect(decoded.hashValue == data.hashValue)
        #expect(decoded.locale.identifier == "en_US" && decoded.identifier == "com.example.chess")
        #expect(Self.chessData(includeOpenings: false) != data)

        let phonemes = SFCustomLanguageModelData.supportedPhonemes(locale: Locale(identifier: "en-GB"))
        #expect(["tS", "dZ", "T", "D", "@", "{", "aU", "@`"].allSatisfy(phonemes.contains))
        #expect(SFCustomLanguageModelData.supportedPhonemes(locale: Locale(identifier: "ja-JP")).isEmpty)
    }

    /// Records the contexts it is given.
    actor RecordingProcessor: ModuleProcessor {
        var strings: [[String]] = []
        func prepare(context: AnalysisContext, retention: SpeechAnalyzer.Options.ModelRetention) async throws {
            strings.append(context.allContextualStrings)
        }
        func append(_ samples: [Float], at start: Int64) async throws {}
        func finalize(through end: Int64?) async throws {}
        func cancel(before start: Int64) async {}
        func setContext(_ context: AnalysisContext) async { strings.append(context.allContextualStrings) }
        func finish(throwing error: (any Error)?) async {}
    }

    @Test("DictationTranscriber gives a prepared model's vocabulary to its transcriber as contextual strings")
    func dictationWiring() async throws {
        let folder = try makeTemporaryDirectory("custom-lm")
        defer { try? FileManager.default.removeItem(at: folder) }
        let asset = folder.appendingPathComponent("chess.bin")
        try await Self.chessData().export(to: asset)
        let configuration = SFSpeechLanguageModel.Configuration(languageModel: folder.appendingPathComponent("chess.lm"))
        try await SFSpeechLanguageModel.prepareCustomLanguageModel(for: asset, clientIdentifier: "c",
                                                                   configuration: configuration)

        let transcriber = DictationTranscriber(locale: Locale(identifier: "en-US"),
                                               contentHints: [.customizedLanguage(modelConfiguration: configuration)],
                                               transcriptionOptions: [], reportingOptions: [], attributeOptions: [])
        #expect(transcriber.processor is CustomVocabularyProcessor)
        #expect(DictationTranscriber(locale: Locale(identifier: "en-US"), preset: .shortDictation).processor
                is TranscriptionProcessor)

        let recorder = RecordingProcessor()
        let wrapper = CustomVocabularyProcessor(wrapping: recorder, configurations: [configuration])
        let context = AnalysisContext()
        context.contextualStrings[.general] = ["Magnus"]
        try await wrapper.prepare(context: context, retention: .whileInUse)
        await wrapper.setContext(AnalysisContext())
        let seen = await recorder.strings
        let vocabulary = try CustomLanguageModelVocabulary.contextualStrings(for: configuration)
        #expect(seen == [vocabulary + ["Magnus"], vocabulary])
        #expect(seen[0].prefix(2) == ["Winawer", "Tartakower"])

        let unprepared = CustomVocabularyProcessor(
            wrapping: RecordingProcessor(),
            configurations: [.init(languageModel: folder.appendingPathComponent("nothing.lm"))])
        await #expect(throws: SFSpeechError.self) { try await unprepared.prepare(context: context, retention: .whileInUse) }
    }
}
