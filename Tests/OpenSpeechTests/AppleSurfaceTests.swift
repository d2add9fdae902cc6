// Members of Apple's Speech interface (the iOS/macOS 26.5 swiftinterface) that code uses beyond the calls the seeds
// make: conformances and raw values.
import Foundation
@testable import OpenSpeech
import Testing

@Suite struct AppleSurfaceTests {
    static func result(_ text: String, final: Bool) -> SpeechTranscriber.Result {
        let range = CMTimeRange(start: CMTime(value: 0, timescale: 100), end: CMTime(value: 248, timescale: 100))
        return SpeechTranscriber.Result(range: range, resultsFinalizationTime: final ? range.end : range.start,
                                        alternatives: [AttributedString(text)])
    }

    @Test func resultsAreHashableAndDescribed() {
        let results: Set<SpeechTranscriber.Result> = [Self.result("a", final: true), Self.result("a", final: true),
                                                      Self.result("b", final: false)]
        #expect(results.count == 2)
        #expect(Self.result("hello", final: true).description == "0.00–2.48 s, final: hello")
        #expect(Self.result("hello", final: false).description == "0.00–2.48 s, volatile: hello")
        let dictation = DictationTranscriber.Result(range: Self.result("", final: true).range,
                                                    resultsFinalizationTime: .zero, alternatives: [AttributedString("x")])
        #expect(Set([dictation, dictation]).count == 1)
        #expect(dictation.description.hasSuffix("volatile: x"))
    }

    @Test func enumerationsAreApples() {
        #expect(SpeechDetector.SensitivityLevel(rawValue: SpeechDetector.SensitivityLevel.high.rawValue) == .high)
        #expect(SpeechDetector.SensitivityLevel.allCases.map(\.rawValue) == [0, 1, 2])
        #expect(SpeechAnalyzer.Options.ModelRetention.allCases == [.whileInUse, .lingering, .processLifetime])
        #expect(Set(SpeechAnalyzer.Options.ModelRetention.allCases).count == 3)
    }
}
