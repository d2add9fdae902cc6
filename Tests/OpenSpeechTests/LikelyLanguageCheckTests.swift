import Testing
import OpenSpeech

/// The policy `openspeech listen` runs with no language given: start in the environment's language, switch only on a
/// confident detection of another, stop checking once the likely one is heard or detections stay unsure.
@Suite("Likely language check")
struct LikelyLanguageCheckTests {
    @Test("no speech yet decides nothing; the likely language heard confirms it")
    func confirms() {
        var check = LikelyLanguageCheck(likely: "en")
        #expect(check.take(nil) == .undecided)
        #expect(check.take(nil) == .undecided)
        #expect(check.take(DetectedLanguage(language: "en", probability: 0.4)) == .confirmed)
    }

    @Test("a confident other language switches; an unsure one waits, and three unsure ones keep the likely language")
    func switchesOnlyWhenSure() {
        var sure = LikelyLanguageCheck(likely: "en")
        let french = DetectedLanguage(language: "fr", probability: 0.93)
        #expect(sure.take(french) == .switchTo(french))

        var unsure = LikelyLanguageCheck(likely: "en")
        #expect(unsure.take(DetectedLanguage(language: "de", probability: 0.5)) == .undecided)
        #expect(unsure.take(nil) == .undecided)
        #expect(unsure.take(DetectedLanguage(language: "nl", probability: 0.79)) == .undecided)
        #expect(unsure.take(DetectedLanguage(language: "de", probability: 0.6)) == .confirmed)

        var late = LikelyLanguageCheck(likely: "en")
        #expect(late.take(DetectedLanguage(language: "es", probability: 0.5)) == .undecided)
        let spanish = DetectedLanguage(language: "es", probability: LikelyLanguageCheck.switchProbability)
        #expect(late.take(spanish) == .switchTo(spanish))
    }
}
