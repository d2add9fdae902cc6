import Foundation
import OpenSpeech
import Testing
import TestSupport

/// `Result.alternatives` with `.alternativeTranscriptions`: the beam search's other hypotheses, best first.
@Suite(.serialized) struct AlternativesTests {
    /// LibriSpeech clean clips of a few seconds to 17 s, and the noisier "other" ones, where beams disagree.
    static let clips = ["1089-134686-0002", "1221-135766-0001", "1995-1837-0001", "4198-12281-0002",
                        "7018-75788-0004", "2033-164915-0001"].compactMap(Corpus.item)

    /// The final results of one clip analyzed as a file.
    static func finals<Module: SpeechModule>(_ module: Module, clip: CorpusItem) async throws -> [Module.Result] {
        let analyzer = SpeechAnalyzer(modules: [module])
        let collector = Task { try await module.results.reduce(into: [Module.Result]()) { $0.append($1) } }
        _ = try await analyzer.analyzeSequence(from: clip.wav16kURL)
        try await analyzer.finalizeAndFinishThroughEndOfInput()
        return try await collector.value.filter(\.isFinal)
    }

    static func transcriber(alternatives: Bool, attributes: Set<SpeechTranscriber.ResultAttributeOption> = [],
                            modelID: String? = nil) -> SpeechTranscriber {
        SpeechTranscriber(locale: TestEnvironment.english, transcriptionOptions: [],
                          reportingOptions: alternatives ? [.alternativeTranscriptions] : [],
                          attributeOptions: attributes, engineConfiguration: .init(modelID: modelID, beamSize: 5))
    }

    @Test("English with .alternativeTranscriptions runs the model that gives them (whisper-tiny.en, not Moonshine)")
    func alternativesChooseTheModel() async throws {
        try await TestEnvironment.ready()
        #expect(Self.transcriber(alternatives: true).selectedModelID == "whisper-tiny.en")
        #expect(Self.transcriber(alternatives: false).selectedModelID == "moonshine-base-en")
        #expect(Self.transcriber(alternatives: true).assetNeeds == .alternatives)
    }

    static func plain(_ text: AttributedString) -> String { String(text.characters) }

    @Test("with .alternativeTranscriptions and beam 5: the best text as without it, then distinct non-empty others")
    func speechTranscriberAlternatives() async throws {
        try await TestEnvironment.ready()
        try #require(Self.clips.count == 6)
        var several = 0
        for clip in Self.clips {
            let with = try await Self.finals(Self.transcriber(alternatives: true), clip: clip)
            let without = try await Self.finals(Self.transcriber(alternatives: false, modelID: "whisper-tiny.en"), clip: clip)
            // The first alternative is the text the same model gives without them (same ranges, same words).
            #expect(with.map { Self.plain($0.alternatives[0]) } == without.map { Self.plain($0.text) }, "\(clip.id)")
            #expect(with.map(\.range) == without.map(\.range), "\(clip.id)")
            #expect(without.allSatisfy { $0.alternatives.count == 1 }, "\(clip.id): one alternative without the option")
            for result in with {
                let texts = result.alternatives.map(Self.plain)
                #expect(result.text == result.alternatives[0])
                #expect(texts.allSatisfy { !$0.trimmingCharacters(in: .whitespaces).isEmpty }, "\(clip.id): \(texts)")
                #expect(Set(texts).count == texts.count, "\(clip.id): repeated alternative in \(texts)")
                #expect(texts.count <= 5, "\(clip.id): more alternatives than beams: \(texts)")
                if texts.count >= 2 {
                    several += 1
                    print("\(clip.id): \(texts)")
                }
            }
        }
        #expect(several >= 1, "no result had two alternatives")
    }

    @Test("time-indexed preset: the best keeps its word times; the others span the result's range")
    func alternativeAttributes() async throws {
        try await TestEnvironment.ready()
        var checked = 0
        for clip in Self.clips.prefix(4) {
            let transcriber = SpeechTranscriber(locale: TestEnvironment.english,
                                                preset: .timeIndexedTranscriptionWithAlternatives)
            for result in try await Self.finals(transcriber, clip: clip) {
                let bestRanges = result.alternatives[0].runs.compactMap(\.audioTimeRange)
                #expect(bestRanges.count == result.alternatives[0].runs.count && !bestRanges.isEmpty)
                for other in result.alternatives.dropFirst() {
                    #expect(other.runs.map(\.audioTimeRange) == [result.range], "\(clip.id)")
                    checked += 1
                }
            }
        }
        #expect(checked >= 1, "no result had a second alternative to check")
    }

    @Test("DictationTranscriber: alternatives when asked (short form included), formatted and distinct; else one")
    func dictationAlternatives() async throws {
        try await TestEnvironment.ready()
        var several = 0
        for clip in Self.clips {
            let asked = DictationTranscriber(locale: TestEnvironment.english, contentHints: [.shortForm],
                                             transcriptionOptions: [], reportingOptions: [.alternativeTranscriptions],
                                             attributeOptions: [])
            for result in try await Self.finals(asked, clip: clip) {
                let texts = result.alternatives.map(Self.plain)
                #expect(texts.allSatisfy { !$0.trimmingCharacters(in: .whitespaces).isEmpty }, "\(clip.id): \(texts)")
                #expect(Set(texts).count == texts.count, "\(clip.id): repeated alternative in \(texts)")
                // Without `.punctuation`, every alternative loses the model's punctuation.
                #expect(texts.allSatisfy { !$0.contains { [".", ",", "?", "!"].contains($0) } }, "\(clip.id): \(texts)")
                if texts.count >= 2 { several += 1 }
            }
        }
        #expect(several >= 1, "no dictation result had two alternatives")
        let plain = DictationTranscriber(locale: TestEnvironment.english, preset: .longDictation)
        let results = try await Self.finals(plain, clip: Self.clips[1])
        #expect(!results.isEmpty && results.allSatisfy { $0.alternatives.count == 1 })
    }
}
