import Foundation
import Testing
@testable import OpenSpeech
import SpeechAssets
import SpeechAudio
import SpeechEvaluation
import TestSupport

/// Language detection past a file's first speech (issue 19): detection on the speech alone (not Whisper's padded
/// 30 s), each 30 s window's language for recordings in several languages (`--detect-language-per-window`), and live
/// input that decides its language in the first speech.
@Suite("Language per window, shortened detection, live detection", .serialized)
struct LanguageWindowsTests {
    static func ready() async throws {
        try await TestEnvironment.ready()
        _ = try await TestModels.directory(for: "whisper-base")
        _ = try await TestModels.directory(for: "silero-vad")
    }

    // MARK: Policies (no model)

    @Test("the detection encoding: the window's audio and 1 s of padding, never more than Whisper's 30 s")
    func encoding() {
        let encoding = DetectionEncoding()
        #expect(encoding.positions(forSamples: 5 * 16_000) == 250 + 50)
        #expect(encoding.positions(forSamples: 321) == 2 + 50, "a started 20 ms position counts")
        #expect(encoding.positions(forSamples: 0) == 50)
        #expect(encoding.positions(forSamples: 29 * 16_000) == 1_500)
        #expect(encoding.positions(forSamples: 30 * 16_000) == 1_500)
        #expect(DetectionEncoding(paddingPositions: 0).positions(forSamples: 0) == 1)
    }

    @Test("the first look: 6 s of speech, taken only when there is more, deciding at 80 %")
    func firstLook() {
        let look = FirstLook()
        #expect(look.samples == 96_000)
        #expect(!look.applies(toAvailable: 96_000), "speech no longer than the look: the first window is the same audio")
        #expect(look.applies(toAvailable: 96_001))
        #expect(look.decides(probability: 0.8) && !look.decides(probability: 0.79))
    }

    @Test("live decision: waits for 2 s of speech, takes a sure language, any language after 8 s or when the audio ends")
    func liveDecision() {
        let decision = LiveLanguageDecision()
        #expect(!decision.shouldDetect(speechSamples: 16_000, force: false))
        #expect(decision.shouldDetect(speechSamples: 16_000, force: true))
        #expect(!decision.shouldDetect(speechSamples: 0, force: true), "no speech: nothing to hear")
        #expect(decision.shouldDetect(speechSamples: 32_000, force: false))
        #expect(decision.accepts(probability: 0.8, speechSamples: 32_000, force: false))
        #expect(!decision.accepts(probability: 0.3, speechSamples: 32_000, force: false))
        #expect(decision.accepts(probability: 0.3, speechSamples: 8 * 16_000, force: false))
        #expect(decision.accepts(probability: 0.3, speechSamples: 32_000, force: true))
    }

    // MARK: Per window

    @Test("--detect-language-per-window: French then English speech, each part in its own language and marked with it")
    func perWindow() async throws {
        try await Self.ready()
        let french = try #require(Corpus.item("pv-leopard-fr")), english = try #require(Corpus.item("jfk"))
        // 7 × 6.7 s of French (more than a 30 s window of speech), then 3 × 11 s of English; built here, never stored.
        let frenchSamples = try MonoAudio.load(contentsOf: french.wav16kURL)
        let englishSamples = try MonoAudio.load(contentsOf: english.wav16kURL)
        let samples = Array(repeating: frenchSamples, count: 7).flatMap { $0 }
            + Array(repeating: englishSamples, count: 3).flatMap { $0 }
        let frenchEnd = Double(7 * frenchSamples.count) / 16_000
        let transcript = try await FileTranscriber(
            options: .init(locale: Locale(identifier: "en-US"), beamSize: 1, detectsLanguage: true,
                           detectsLanguagePerWindow: true),
            store: TestModels.store).transcribe(samples: samples)
        for segment in transcript.segments {
            print("[\(segment.language ?? "-")] \(String(format: "%6.2f-%6.2f", segment.start, segment.end)) \(segment.text)")
        }
        let early = transcript.segments.filter { $0.end < frenchEnd - 12 }
        let late = transcript.segments.filter { $0.start > frenchEnd + 8 }
        try #require(!early.isEmpty && !late.isEmpty)
        #expect(early.allSatisfy { $0.language == "fr" }, "\(early.map { ($0.language, $0.text) })")
        #expect(late.allSatisfy { $0.language == "en" }, "\(late.map { ($0.language, $0.text) })")
        #expect(transcript.language == "fr", "the transcript's language is its first window's")
        let earlyText = early.map(\.text).joined(separator: " ").lowercased()
        let lateText = late.map(\.text).joined(separator: " ").lowercased()
        #expect(earlyText.contains("conseil") || earlyText.contains("consulat"), "French written in French: \(earlyText)")
        #expect(lateText.contains("country"), "English written in English: \(lateText)")
        let json = try #require(try JSONSerialization.jsonObject(
            with: Data(try transcript.formatted(as: .json).utf8)) as? [String: Any])
        let segments = try #require(json["segments"] as? [[String: Any]])
        #expect(segments.first?["language"] as? String == "french" && segments.last?["language"] as? String == "english",
                "\(segments.map { $0["language"] ?? "-" })")

        // Without the option the first speech decides for the whole recording: English is not English there.
        let single = try await FileTranscriber(
            options: .init(locale: Locale(identifier: "en-US"), beamSize: 1, detectsLanguage: true),
            store: TestModels.store).transcribe(samples: samples)
        #expect(single.language == "fr" && single.segments.allSatisfy { $0.language == nil })
    }

    @Test("--detect-language-per-window with a language given: a usage error")
    func perWindowNeedsDetection() async throws {
        try await TestEnvironment.ready()
        let clip = try #require(Corpus.item("jfk"))
        let (status, output) = try await OpenSpeechExecutable.run(
            ["transcribe", clip.wav16kURL.path, "--locale", "fr", "--detect-language-per-window"],
            environment: ["OPENSPEECH_HOME": TestModels.home.path])
        #expect(status != 0)
        #expect(output.contains("--detect-language-per-window") && output.contains("no --language"), "\(output)")
    }

    // MARK: Live

    @Test("transcribe - --live with no language: the language decided in the first speech (stderr), French text")
    func liveDetects() async throws {
        try await Self.ready()
        let clip = try #require(Corpus.item("pv-leopard-fr"))
        // The WAV stream at twice real time, in 0.25 s pieces.
        let (status, output) = try await runFeedingStandardInput(
            try #require(OpenSpeechExecutable.url), ["transcribe", "-", "--live", "--no-download"],
            environment: ["OPENSPEECH_HOME": TestModels.home.path], bytes: try Data(contentsOf: clip.wav16kURL),
            piece: 8_000, every: .milliseconds(125))
        let lines = output.split(separator: "\n")
        let messages = lines.filter { $0.hasPrefix("openspeech:") }.joined(separator: "\n")
        let text = lines.filter { !$0.hasPrefix("openspeech:") && !$0.contains("\r") }.joined(separator: " ")
        #expect(status == 0, "\(messages)")
        #expect(messages.contains("detected French (fr)"), "\(messages)")
        let rate = WordErrorRate.score(reference: clip.transcript, hypothesis: text, language: "fr").rate
        #expect(rate < 0.5, "WER \(rate): \(text)")
    }

    @Test("a volatile SpeechTranscriber detecting the language: every result, volatile and final, marked fr")
    func volatileTranscriberDetects() async throws {
        try await Self.ready()
        let clip = try #require(Corpus.item("pv-leopard-fr"))
        let transcriber = SpeechTranscriber(locale: Locale(identifier: "en-US"), transcriptionOptions: [],
                                            reportingOptions: [.volatileResults], attributeOptions: [],
                                            engineConfiguration: .init(detectsLanguage: true))
        let analyzer = SpeechAnalyzer(modules: [transcriber])
        async let collected = transcriber.results.reduce(into: [SpeechTranscriber.Result]()) { $0.append($1) }
        if let end = try await analyzer.analyzeSequence(from: AVAudioFile(forReading: clip.wav16kURL)) {
            try await analyzer.finalizeAndFinish(through: end)
        }
        let results = try await collected
        let finals = results.filter(\.isFinal).map { String($0.text.characters) }.joined()
        #expect(WordErrorRate.score(reference: clip.transcript, hypothesis: finals, language: "fr").rate < 0.5, "\(finals)")
        for result in results where !result.text.characters.isEmpty {
            #expect(result.text.runs.allSatisfy { $0.detectedLanguage == "fr" }, "\(result.text)")
        }
    }
}
