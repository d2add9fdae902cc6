// The legacy API's result assembly, without a model: finals and the volatile tail as one text, words as segments.
import Foundation
@testable import OpenSpeech
import Testing

private func time(_ seconds: Double) -> CMTime { CMTime(seconds: seconds, preferredTimescale: 16_000) }

/// A result whose words (leading spaces as the transcriber gives them) run from `start`, 0.5 s each.
private func result(_ words: [String], start: Double, final: Bool, alternatives: [String] = []) -> SpeechTranscriber.Result {
    var text = AttributedString()
    for (index, word) in words.enumerated() {
        var run = AttributedString(word)
        run.audioTimeRange = CMTimeRange(start: time(start + 0.5 * Double(index)), end: time(start + 0.5 * Double(index + 1)))
        run.transcriptionConfidence = 0.9
        text += run
    }
    let end = time(start + 0.5 * Double(words.count))
    return SpeechTranscriber.Result(range: CMTimeRange(start: time(start), end: end),
                                    resultsFinalizationTime: final ? end : time(start),
                                    alternatives: [text] + alternatives.map { AttributedString($0) })
}

@Suite struct LegacyTranscriptAssemblyTests {
    @Test func partialResultsHoldAllTheTextSoFar() {
        var assembly = LegacyTranscriptAssembly(punctuation: true)
        assembly.add(result(["Hello", " world."], start: 0, final: true))
        assembly.add(result([" How", " are"], start: 1, final: false))
        let partial = assembly.transcriptions(final: false)
        #expect(partial.count == 1)
        #expect(partial[0].formattedString == "Hello world. How are")
        #expect(partial[0].segments.map(\.confidence) == [0, 0, 0, 0], "partial results carry no confidence, as Apple's")

        // A final settles the volatile text; the next volatile result follows it.
        assembly.add(result([" How", " are", " you?"], start: 1, final: true))
        assembly.add(result([" Fine"], start: 2.5, final: false))
        #expect(assembly.transcriptions(final: false)[0].formattedString == "Hello world. How are you? Fine")
        // The final transcription holds the finals only.
        let final = assembly.transcriptions(final: true)[0]
        #expect(final.formattedString == "Hello world. How are you?")
        #expect(final.segments.map(\.substring) == ["Hello", "world.", "How", "are", "you?"])
        #expect(final.segments.map(\.timestamp) == [0, 0.5, 1, 1.5, 2])
        #expect(final.segments.allSatisfy { $0.duration == 0.5 && abs($0.confidence - 0.9) < 1e-6 })
        for segment in final.segments {
            #expect((final.formattedString as NSString).substring(with: segment.substringRange) == segment.substring)
        }
    }

    @Test func anEmptyVolatileResultWithdrawsTheVolatileText() {
        var assembly = LegacyTranscriptAssembly(punctuation: true)
        assembly.add(result(["Uh"], start: 0, final: false))
        #expect(!assembly.isEmpty)
        assembly.add(SpeechTranscriber.Result(range: CMTimeRange(start: time(0), end: time(1)),
                                              resultsFinalizationTime: time(0), alternatives: [AttributedString()]))
        #expect(assembly.isEmpty)
    }

    @Test func withoutPunctuationTheMarksGoButNumbersStay() {
        var assembly = LegacyTranscriptAssembly(punctuation: false)
        assembly.add(result(["Yes,", " it", " costs", " 3.5", " dollars."], start: 0, final: true))
        let final = assembly.transcriptions(final: true)[0]
        #expect(final.formattedString == "Yes it costs 3.5 dollars")
        #expect(final.segments.map(\.substring) == ["Yes", "it", "costs", "3.5", "dollars"])
    }

    @Test func alternativesAreWholeTextsRankedByTheirResults() {
        var assembly = LegacyTranscriptAssembly(punctuation: true)
        assembly.add(result(["I", " scream."], start: 0, final: true, alternatives: [" Ice cream."]))
        assembly.add(result([" Thanks."], start: 1, final: true))
        let transcriptions = assembly.transcriptions(final: true)
        #expect(transcriptions.map(\.formattedString) == ["I scream. Thanks.", "Ice cream. Thanks."])
    }

    @Test func aRunWithoutALeadingSpaceContinuesTheWordBefore() {
        var assembly = LegacyTranscriptAssembly(punctuation: true)
        assembly.add(result(["It's", " twenty", "-five"], start: 0, final: true))
        let final = assembly.transcriptions(final: true)[0]
        #expect(final.segments.map(\.substring) == ["It's", "twenty-five"])
        #expect(final.segments[1].timestamp == 0.5 && final.segments[1].duration == 1.0)
    }

    @Test func metadataComesFromTheWordTimes() throws {
        let segments = [(0.5, 0.5), (1.5, 0.5), (2.5, 0.5)].map { start, duration in
            SFTranscriptionSegment(substring: "w", substringRange: NSRange(location: 0, length: 1),
                                   timestamp: start, duration: duration, confidence: 1)
        }
        let metadata = try #require(SFSpeechRecognitionMetadata(segments: segments))
        #expect(metadata.speechStartTimestamp == 0.5)
        #expect(metadata.speechDuration == 2.5)
        #expect(metadata.averagePauseDuration == 0.5)
        #expect(abs(metadata.speakingRate - 72) < 1e-9) // 3 words in 2.5 s
    }
}
