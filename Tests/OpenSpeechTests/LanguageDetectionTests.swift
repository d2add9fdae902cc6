import Foundation
import Testing
@testable import OpenSpeech
import SpeechEngine
import SpeechAssets
import SpeechEvaluation
import Synchronization
import TestSupport

/// Every language without being told (issue 19): `openspeech transcribe` and `FileTranscriber` detect the language of
/// each file when none is given, pick the model for it, translate with `--task translate`, and warn or fail in a way a
/// person can act on when the model cannot serve the speech.
@Suite("Language detection and translation", .serialized)
struct LanguageDetectionTests {
    static func ready() async throws {
        try await TestEnvironment.ready()
        _ = try await TestModels.directory(for: "whisper-base")
        _ = try await TestModels.directory(for: "silero-vad")
    }

    static func errorRate(_ reference: String, _ hypothesis: String, _ language: String) -> Double {
        WordErrorRate.score(reference: reference, hypothesis: hypothesis, language: language).rate
    }

    // MARK: Policies (no model)

    @Test("the vote: a sure window decides; unsure windows are averaged, at most three")
    func vote() {
        var vote = LanguageVote()
        #expect(vote.result == nil && !vote.isDecided)
        vote.add([("fr", 0.45), ("en", 0.40), ("de", 0.15)])
        #expect(!vote.isDecided)
        vote.add([("en", 0.48), ("fr", 0.42), ("de", 0.10)])
        #expect(!vote.isDecided)
        #expect(vote.result?.language == "en" && abs(vote.result!.probability - 0.44) < 1e-9)
        vote.add([("de", 0.49), ("fr", 0.40), ("en", 0.11)])
        #expect(vote.isDecided && vote.windows == 3)
        #expect(vote.result?.language == "fr", "fr: 1.27 / 3 beats en 0.99 / 3 and de 0.74 / 3")

        var sure = LanguageVote()
        sure.add([("ja", 0.93), ("zh", 0.05)])
        #expect(sure.isDecided && sure.result == DetectedLanguage(language: "ja", probability: 0.93))
    }

    @Test("the model choice: English to the installed English-only model that serves the request, other languages to the multilingual one")
    func modelChoice() {
        let catalog = ModelCatalog.builtIn
        let both = LanguageModelChoice(catalog: catalog, installed: ["whisper-tiny.en", "whisper-base", "silero-vad"])
        #expect(both.detectionModelID(requested: nil) == "whisper-base")
        #expect(both.detectionModelID(requested: "whisper-tiny.en") == "whisper-base")
        #expect(both.transcriptionModelID(for: "en", needs: [], detectionModelID: "whisper-base") == "whisper-tiny.en")
        #expect(both.transcriptionModelID(for: "fr", needs: [], detectionModelID: "whisper-base") == "whisper-base")
        let baseOnly = LanguageModelChoice(catalog: catalog, installed: ["whisper-base"])
        #expect(baseOnly.transcriptionModelID(for: "en", needs: [], detectionModelID: "whisper-base") == "whisper-base")
        // Moonshine, installed, hears English for a request that needs nothing else; a prompt needs Whisper.
        let all = LanguageModelChoice(catalog: catalog, installed: ["whisper-tiny.en", "whisper-base", "moonshine-base-en"])
        #expect(all.transcriptionModelID(for: "en", needs: [], detectionModelID: "whisper-base") == "moonshine-base-en")
        #expect(all.transcriptionModelID(for: "en", needs: .prompt, detectionModelID: "whisper-base") == "whisper-tiny.en")
        #expect(all.transcriptionModelID(for: "en", needs: .alternatives, detectionModelID: "whisper-base") == "whisper-tiny.en")
        let noEnglishWhisper = LanguageModelChoice(catalog: catalog, installed: ["whisper-base", "moonshine-base-en"])
        #expect(noEnglishWhisper.transcriptionModelID(for: "en", needs: .prompt, detectionModelID: "whisper-base")
                == "whisper-base")
        #expect(LanguageModelChoice.isEnglishOnly(catalog.model("whisper-tiny.en")!))
        #expect(!LanguageModelChoice.isEnglishOnly(catalog.model("whisper-base")!))
    }

    // MARK: Detection

    @Test("every multilingual clip with no language given: the manifest's language, and WER/CER within 1 point of the language forced")
    func multilingualClips() async throws {
        try await Self.ready()
        let clips = TestEnvironment.clips("multilingual")
        try #require(clips.count >= 13)
        let store = TestModels.store
        for clip in clips {
            let detected = try await FileTranscriber(
                options: .init(locale: Locale(identifier: "en-US"), beamSize: 1, detectsLanguage: true), store: store)
                .transcribe(contentsOf: clip.wav16kURL)
            let forced = try await FileTranscriber(
                options: .init(locale: Locale(identifier: clip.language), beamSize: 1), store: store)
                .transcribe(contentsOf: clip.wav16kURL)
            if clip.id == "pv-cheetah-es" {
                // whisper-base is unsure of this clip whatever it hears (faster-whisper 1.2.1, on the raw audio: es at
                // 34 %, el 30 % at int8; es 35 %, el 24 % at float32), and cannot transcribe it told its language
                // either (WER 100 % forced to es, below). Encoded over the speech alone, then averaged with the raw
                // 30 s: es at 19-23 % here (it was el at 25 % over padded windows), at the edge.
                withKnownIssue("whisper-base is unsure of this clip's language", isIntermittent: true) {
                    #expect(detected.language == clip.language, "\(clip.id): \(detected.language)")
                }
            } else {
                #expect(detected.language == clip.language, "\(clip.id): \(detected.language)")
                #expect((detected.languageProbability ?? 0) > 0.5, "\(clip.id): \(String(describing: detected.languageProbability))")
            }
            let auto = Self.errorRate(clip.transcript, detected.text, clip.language)
            let given = Self.errorRate(clip.transcript, forced.text, clip.language)
            print("\(clip.id) [\(clip.language) p=\(detected.languageProbability ?? 0)] auto \(auto) forced \(given): \(detected.text)")
            // The unsure clip, detected as another language, is transcribed in that one: nothing to compare.
            guard detected.language == clip.language else { continue }
            #expect(auto <= given + 0.01, "\(clip.id): \(detected.text) / \(forced.text)")
        }
    }

    @Test("""
        files in one call (the next one's language detected while one is transcribed): in order, an unreadable one \
        failing alone, each file's events together, each file's language, probability and text those of the file alone
        """)
    func filesInOneCall() async throws {
        try await Self.ready()
        let ids = ["pv-leopard-fr", "1089-134686-0002", "pv-leopard-de", "pv-cheetah-it"]
        var urls = try ids.map { try #require(Corpus.item($0)).wav16kURL }
        let missing = URL(fileURLWithPath: "/nonexistent/openspeech-missing.wav")
        urls.insert(missing, at: 2)
        let transcriber = FileTranscriber(
            options: .init(locale: Locale(identifier: "en-US"), beamSize: 1, detectsLanguage: true), store: TestModels.store)
        let events = Mutex<[(url: URL, event: FileTranscriber.Event)]>([])
        var together: [(url: URL, result: Result<Transcript, any Error>)] = []
        for await element in transcriber.transcriptions(of: urls, events: { url, event in events.withLock { $0.append((url, event)) } }) {
            together.append(element)
        }
        #expect(together.map(\.url) == urls)
        #expect(throws: AudioError.self) { try together[2].result.get() }
        // Each file's events after the previous file's: its language is told when its transcription starts.
        let order = events.withLock { $0.map { urls.firstIndex(of: $0.url)! } }
        #expect(order == order.sorted(), "\(order)")
        for url in urls where url != missing {
            let told = events.withLock { $0.filter { $0.url == url }.map(\.event) }
            #expect(told.first.map { if case .languageDetected = $0 { true } else { false } } == true, "\(url.lastPathComponent): \(told.prefix(2))")
        }
        // Each alone, in the reverse order (after everything above was loaded): the same language, to the last bit of
        // its probability, and the same text.
        for (url, result) in together.reversed() where url != missing {
            let alone = try await transcriber.transcribe(contentsOf: url)
            let inCall = try result.get()
            #expect(inCall.language == alone.language && inCall.languageProbability == alone.languageProbability,
                    "\(url.lastPathComponent): \(inCall.language) \(String(describing: inCall.languageProbability)) alone \(alone.language) \(String(describing: alone.languageProbability))")
            #expect(inCall.text == alone.text, "\(url.lastPathComponent)")
        }
        let languages = together.compactMap { try? $0.result.get().language }
        #expect(languages == ["fr", "en", "de", "it"], "\(languages)")
    }

    @Test("English clips with no --locale: the same text as --locale en-US (the English model is chosen)")
    func englishIdentical() async throws {
        try await Self.ready()
        let clips = TestEnvironment.clips("ls-clean") + [try #require(Corpus.item("jfk"))]
        let environment = ["OPENSPEECH_HOME": TestModels.home.path]
        let paths = clips.map(\.wav16kURL.path)
        let (autoStatus, auto) = try await OpenSpeechExecutable.run(
            ["transcribe"] + paths + ["--quiet", "--no-download"], environment: environment)
        let (forcedStatus, forced) = try await OpenSpeechExecutable.run(
            ["transcribe"] + paths + ["--locale", "en-US", "--quiet", "--no-download"], environment: environment)
        #expect(autoStatus == 0 && forcedStatus == 0, "\(auto)\n\(forced)")
        #expect(auto == forced)
        #expect(auto.split(separator: "\n").count == clips.count, "\(auto)")
    }

    @Test("""
        the French clip with no options: detected (stderr, JSON language and language_probability) and transcribed in \
        French, the file opened once for both
        """)
    func frenchCommandLine() async throws {
        try await Self.ready()
        let clip = try #require(Corpus.item("pv-leopard-fr"))
        let folder = try makeTemporaryDirectory("openspeech-lang-json")
        defer { try? FileManager.default.removeItem(at: folder) }
        // A copy of its own, which no test running beside this one opens.
        let input = folder.appendingPathComponent("\(clip.id).\(clip.originalURL.pathExtension)")
        try FileManager.default.copyItem(at: clip.originalURL, to: input)
        let watch = try FileOpenWatch(input)
        let (status, output) = try await OpenSpeechExecutable.run(
            ["transcribe", input.path, "--format", "json", "--output-dir", folder.path, "--no-download"],
            environment: ["OPENSPEECH_HOME": TestModels.home.path])
        #expect(watch.opens() == 1, "language detection and the transcription read the file in one pass")
        #expect(status == 0, "\(output)")
        #expect(output.contains("detected French (fr,"), "\(output)")
        let json = try #require(try JSONSerialization.jsonObject(
            with: Data(contentsOf: folder.appendingPathComponent("\(clip.id).json"))) as? [String: Any])
        #expect(json["language"] as? String == "french")
        #expect(((json["language_probability"] as? Double) ?? 0) > 0.5, "\(json)")
        let text = try #require(json["text"] as? String)
        #expect(Self.errorRate(clip.transcript, text, "fr") < 0.35, "\(text)")

        let (_, given) = try await OpenSpeechExecutable.run(
            ["transcribe", clip.originalURL.path, "--locale", "fr", "--format", "json", "--quiet", "--no-download"],
            environment: ["OPENSPEECH_HOME": TestModels.home.path])
        #expect(!given.contains("language_probability"), "a language given is not a language detected: \(given)")
    }

    @Test("SpeechTranscriber detecting the language (an OpenSpeech extension): French text, each result marked fr; installedLocales lists the multilingual model's languages")
    func transcriberDetects() async throws {
        try await Self.ready()
        let clip = try #require(Corpus.item("pv-leopard-fr"))
        let transcriber = SpeechTranscriber(locale: Locale(identifier: "en-US"), preset: .transcription,
                                            engineConfiguration: .init(beamSize: 1, detectsLanguage: true))
        let analyzer = SpeechAnalyzer(modules: [transcriber])
        async let collected = transcriber.results.reduce(into: [SpeechTranscriber.Result]()) { $0.append($1) }
        if let end = try await analyzer.analyzeSequence(from: AVAudioFile(forReading: clip.wav16kURL)) {
            try await analyzer.finalizeAndFinish(through: end)
        }
        let results = try await collected
        let text = results.map { String($0.text.characters) }.joined()
        #expect(!results.isEmpty && Self.errorRate(clip.transcript, text, "fr") < 0.35, "\(text)")
        for result in results {
            #expect(result.text.runs.allSatisfy { $0.detectedLanguage == "fr" }, "\(result.text)")
        }
        let installed = await SpeechTranscriber.installedLocales
        for language in ["en", "fr", "ja", "zh", "ru"] {
            #expect(installed.contains { $0.language.languageCode?.identifier == language }, "\(language)")
        }
    }

    // MARK: Translation

    /// Short hand-written English glosses of the French and German clips: content words a translation must carry
    /// (a stem matches inflections), at least `needed` of them.
    static let glosses: [(id: String, words: [String], needed: Int)] = [
        ("pv-leopard-fr", ["consul", "forest", "water", "general", "council", "conserv"], 3),  // Under the consulate he becomes curator of waters and forests and general councillor
        ("pv-cheetah-fr", ["two", "other", "yellow", "sea"], 3),  // The other two are on the shore of the Yellow Sea
        ("pv-leopard-de", ["room", "behind", "portal", "used", "morgue", "mortuary", "funeral", "hall"], 3),  // The room behind this portal was used as a mortuary
        ("pv-cheetah-de", ["advertis", "false", "wrong", "impression"], 2),  // Advertising gives a false impression
    ]

    @Test("--task translate on the French and German clips: English text carrying the content words of a hand-written gloss")
    func translation() async throws {
        try await Self.ready()
        let store = TestModels.store
        for gloss in Self.glosses {
            let clip = try #require(Corpus.item(gloss.id))
            let transcript = try await FileTranscriber(
                options: .init(locale: Locale(identifier: "en-US"), beamSize: 5, detectsLanguage: true, task: .translate),
                store: store).transcribe(contentsOf: clip.wav16kURL)
            let text = transcript.text.lowercased()
            let found = gloss.words.filter { text.contains($0) }
            print("\(clip.id) → \(transcript.text) [\(found.joined(separator: ", "))]")
            #expect(transcript.language == clip.language)
            // Without VNNI the encoder's int8 weights have 7 bits (`PackedMatrix.saturatesPairs`), and whisper-base
            // translates the leopard clip's "waters and forests" as "the holes and holes of the holes" (Zen 3 EPYC).
            let needed = gloss.id == "pv-leopard-fr" && !MatrixBackend.hasVNNI ? 2 : gloss.needed
            #expect(found.count >= needed, "\(clip.id): \(transcript.text)")
            #expect(Self.errorRate(clip.transcript, transcript.text, clip.language) > 0.7,
                    "\(clip.id): the text is still in \(clip.language): \(transcript.text)")
        }
    }

    @Test("an English-only model cannot translate: the error names a multilingual model")
    func englishOnlyModelRefusesTranslation() async throws {
        try await Self.ready()
        let clip = try #require(Corpus.item("pv-cheetah-fr"))
        let (status, output) = try await OpenSpeechExecutable.run(
            ["transcribe", clip.wav16kURL.path, "--task", "translate", "--model", "whisper-tiny.en", "--no-download"],
            environment: ["OPENSPEECH_HOME": TestModels.home.path])
        #expect(status != 0)
        #expect(output.contains("cannot translate") && output.contains("whisper-base"), "\(output)")
    }

    // MARK: Guards

    @Test("an English-only model forced on French speech: a warning naming the language and the command that transcribes it")
    func wrongModelWarning() async throws {
        try await Self.ready()
        let clip = try #require(Corpus.item("pv-leopard-fr"))
        let (status, output) = try await OpenSpeechExecutable.run(
            ["transcribe", clip.wav16kURL.path, "--model", "whisper-tiny.en", "--no-download"],
            environment: ["OPENSPEECH_HOME": TestModels.home.path])
        #expect(status == 0, "\(output)")
        #expect(output.contains("warning:") && output.contains("French (fr"), "\(output)")
        #expect(output.contains("openspeech transcribe \(clip.wav16kURL.path) --model whisper-base"), "\(output)")

        let english = try #require(Corpus.item("jfk"))
        let (_, quiet) = try await OpenSpeechExecutable.run(
            ["transcribe", english.wav16kURL.path, "--model", "whisper-tiny.en", "--no-download"],
            environment: ["OPENSPEECH_HOME": TestModels.home.path])
        #expect(!quiet.contains("warning"), "English speech gets no warning: \(quiet)")
    }

    @Test("--locale auto with no multilingual model installed and --no-download: an error naming the model to install")
    func noMultilingualModel() async throws {
        try await Self.ready()
        let home = try makeTemporaryDirectory("openspeech-english-home")
        defer { try? FileManager.default.removeItem(at: home) }
        try await TestModels.link(["whisper-tiny.en", "silero-vad"], into: home)
        let models = home.appendingPathComponent("models")
        let clip = try #require(Corpus.item("pv-leopard-fr"))
        let (status, output) = try await OpenSpeechExecutable.run(
            ["transcribe", clip.wav16kURL.path, "--locale", "auto", "--no-download"],
            environment: ["OPENSPEECH_HOME": home.path])
        #expect(status != 0)
        #expect(output.contains("language detection") && output.contains("openspeech models install whisper-base"),
                "\(output)")
        #expect(!FileManager.default.fileExists(atPath: models.appendingPathComponent("whisper-base").path))
    }
}
