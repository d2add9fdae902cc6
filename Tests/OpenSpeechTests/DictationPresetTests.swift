import Foundation
import OpenSpeech
import SpeechEvaluation
import Testing
import TestSupport

/// Each `DictationTranscriber` preset delivers results of its documented kind.
@Suite(.serialized) struct DictationPresetTests {
    static let clip = Corpus.item("1221-135766-0002")! // 4.8 s: "Yet these thoughts affected Hester Prynne ..."
    static let marks: Set<Character> = [".", ",", "!", "?", ";", ":"]

    struct Kind {
        var volatile: Bool
        var timeRanges: Bool
        var punctuation: Bool
    }

    static func run(_ transcriber: DictationTranscriber) async throws -> [DictationTranscriber.Result] {
        let analyzer = SpeechAnalyzer(modules: [transcriber])
        let collector = Task { try await transcriber.results.reduce(into: [DictationTranscriber.Result]()) { $0.append($1) } }
        let (stream, builder) = AsyncStream.makeStream(of: AnalyzerInput.self)
        for buffer in try TestEnvironment.buffers(of: clip.wav16kURL) { builder.yield(AnalyzerInput(buffer: buffer)) }
        builder.finish()
        _ = try await analyzer.analyzeSequence(stream)
        try await analyzer.finalizeAndFinishThroughEndOfInput()
        return try await collector.value
    }

    static let presets: [(String, DictationTranscriber.Preset, Kind)] = [
        ("phrase", .phrase, Kind(volatile: false, timeRanges: false, punctuation: false)),
        ("shortDictation", .shortDictation, Kind(volatile: false, timeRanges: false, punctuation: true)),
        ("progressiveShortDictation", .progressiveShortDictation, Kind(volatile: true, timeRanges: false, punctuation: true)),
        ("longDictation", .longDictation, Kind(volatile: false, timeRanges: false, punctuation: true)),
        ("progressiveLongDictation", .progressiveLongDictation, Kind(volatile: true, timeRanges: false, punctuation: true)),
        ("timeIndexedLongDictation", .timeIndexedLongDictation, Kind(volatile: false, timeRanges: true, punctuation: true)),
    ]

    @Test("each preset: volatile or not, time ranges or not, punctuation or not", arguments: 0..<6)
    func preset(index: Int) async throws {
        try await TestEnvironment.ready()
        let (name, preset, kind) = Self.presets[index]
        let results = try await Self.run(DictationTranscriber(locale: TestEnvironment.english, preset: preset))
        let finals = results.filter(\.isFinal)
        let text = finals.map { String($0.text.characters) }.joined()
        print("\(name): \(text)")
        #expect(!finals.isEmpty, "\(name): no final result")
        #expect(results.contains { !$0.isFinal } == kind.volatile, "\(name): volatile results")
        let runs = finals.flatMap { $0.text.runs.map(\.audioTimeRange) }
        #expect(runs.allSatisfy { ($0 != nil) == kind.timeRanges }, "\(name): time ranges")
        #expect(text.contains { Self.marks.contains($0) } == kind.punctuation, "\(name): punctuation in \(text)")
        let score = WordErrorRate.score(reference: Self.clip.transcript, hypothesis: text, language: "en")
        #expect(score.rate < 0.3, "\(name): WER \(score.rate): \(text)")
    }

    @Test("content hints (custom language model included) and options are stored")
    func hintsAndOptions() {
        let configuration = SFSpeechLanguageModel.Configuration(languageModel: URL(fileURLWithPath: "/tmp/lm.bin"))
        let transcriber = DictationTranscriber(
            locale: TestEnvironment.english,
            contentHints: [.farField, .atypicalSpeech, .customizedLanguage(modelConfiguration: configuration)],
            transcriptionOptions: [.emoji, .etiquetteReplacements], reportingOptions: [.frequentFinalization],
            attributeOptions: [.transcriptionConfidence])
        #expect(transcriber.contentHints.contains(.farField))
        #expect(transcriber.contentHints.compactMap(\.modelConfiguration) == [configuration])
        #expect(transcriber.transcriptionOptions == [.emoji, .etiquetteReplacements])
        #expect(transcriber.reportingOptions == [.frequentFinalization])
        #expect(transcriber.selectedLocales == [TestEnvironment.english])
        #expect(DictationTranscriber.supportedLocale(equivalentTo: Locale(identifier: "en-GB")) != nil)
    }
}
