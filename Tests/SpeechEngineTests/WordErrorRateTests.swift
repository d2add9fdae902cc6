import Testing
import TestSupport

@Suite struct WordErrorRateTests {
    @Test func countsEditsByKind() {
        let counts = WordErrorRate.words(reference: "a b c d", hypothesis: "a x c")
        #expect(counts == ErrorCounts(substitutions: 1, deletions: 1, insertions: 0, referenceLength: 4))
        #expect(counts.rate == 0.5)
        let inserted = WordErrorRate.words(reference: "a b", hypothesis: "z a b y")
        #expect(inserted == ErrorCounts(substitutions: 0, deletions: 0, insertions: 2, referenceLength: 2))
        #expect(inserted.rate == 1.0)
    }

    @Test func emptyTexts() {
        #expect(WordErrorRate.words(reference: "", hypothesis: "") == ErrorCounts())
        #expect(WordErrorRate.words(reference: "", hypothesis: "") .rate == 0)
        #expect(WordErrorRate.words(reference: "a b", hypothesis: "").deletions == 2)
        #expect(WordErrorRate.words(reference: "", hypothesis: "a").insertions == 1)
    }

    @Test func identicalAndDisjoint() {
        #expect(WordErrorRate.words(reference: "the cat sat", hypothesis: "the cat sat").errors == 0)
        #expect(WordErrorRate.words(reference: "the cat sat", hypothesis: "a dog ran").substitutions == 3)
    }

    @Test func corpusLevelSumsCounts() {
        var total = ErrorCounts()
        total += WordErrorRate.words(reference: "a b c d", hypothesis: "a b c d")
        total += WordErrorRate.words(reference: "e f", hypothesis: "e")
        #expect(total.referenceLength == 6 && total.errors == 1)
    }

    @Test func scoreNormalizesAndPicksUnit() {
        let english = WordErrorRate.score(reference: "MISTER QUILTER IS HERE", hypothesis: "Mr. Quilter is here.", language: "en")
        #expect(english.errors == 0 && english.referenceLength == 4)
        let chinese = WordErrorRate.score(reference: "广州市房地产中介协会分析", hypothesis: "广州市房地产中介协会分析。", language: "zh")
        #expect(chinese.errors == 0 && chinese.referenceLength == 12)
        let oneCharacter = WordErrorRate.score(reference: "广州市房地产", hypothesis: "廣州市房地产", language: "zh")
        #expect(oneCharacter == ErrorCounts(substitutions: 1, referenceLength: 6))
        let korean = WordErrorRate.score(reference: "그는 이리저리", hypothesis: "그는이리저리", language: "ko")
        #expect(korean.errors == 0)
        let german = WordErrorRate.score(reference: "Die Werbung vermittelt", hypothesis: "die werbung vermittelte", language: "de")
        #expect(german == ErrorCounts(substitutions: 1, referenceLength: 3))
    }

    @Test func longInputsAreAlignedExactly() {
        let words = (0..<2000).map { "w\($0 % 97)" }
        let reference = words.joined(separator: " ")
        let hypothesis = words.enumerated().map { $0.offset % 10 == 0 ? "x" : $0.element }.joined(separator: " ")
        #expect(WordErrorRate.words(reference: reference, hypothesis: hypothesis).substitutions == 200)
    }
}
