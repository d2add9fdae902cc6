import Testing
@testable import SpeechEngine

/// Segments of words the audio cannot hold, which a window decoded after previous text is decoded again for.
@Suite("Anomalous words")
struct AnomalousWordsTests {
    func word(_ text: String, _ start: Double, _ end: Double, _ probability: Double = 0.9) -> Word {
        Word(start: start, end: end, word: text, probability: probability)
    }

    @Test("a word of no length beside a short one, or improbable instant words, are anomalous")
    func anomalous() {
        // The "Thank you." a prompt of contextual strings made whisper-base write in JFK's last half second.
        #expect(AnomalousWords.isAnomalous([word(" Thank", 10.5, 10.5), word(" you.", 10.5, 10.72)]))
        #expect(AnomalousWords.isAnomalous([word(" so", 1, 1.02, 0.1), word(" that", 1.02, 1.04, 0.1),
                                            word(" is", 1.04, 1.06), word(" it", 1.06, 1.5)]))
        #expect(AnomalousWords.isAnomalous([word(" Okay.", 3, 7.5)]))
    }

    @Test("words of speaking length are not, nor a short word among them, nor punctuation alone")
    func spoken() {
        #expect(!AnomalousWords.isAnomalous([word(" And", 0, 0.76), word(" so", 0.76, 1.06), word(" my", 1.38, 1.44),
                                             word(" fellow", 1.44, 1.76)]))
        #expect(!AnomalousWords.isAnomalous([word(" Oh,", 2, 2.05), word(" yes.", 2.05, 2.4)]))
        #expect(!AnomalousWords.isAnomalous([word(" ...", 2, 2)]))
        #expect(!AnomalousWords.isAnomalous([]))
    }
}
