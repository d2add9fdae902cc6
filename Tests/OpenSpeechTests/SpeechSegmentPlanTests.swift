import Foundation
@testable import OpenSpeech
import Testing

/// How final-only transcription beside a detector splits speech into segments for the engine (no model needed).
@Suite struct SpeechSegmentPlanTests {
    static let rate: Int64 = 16_000

    /// Seconds to a range of timeline samples.
    static func span(_ start: Double, _ end: Double) -> Range<Int64> {
        Int64(start * Double(rate))..<Int64(end * Double(rate))
    }

    /// Audio of `seconds` at a steady level (speech-like), quiet where `quiet` says.
    static func audio(seconds: Double, quiet: [Range<Int64>] = []) -> [Float] {
        var samples = (0..<Int(seconds * Double(rate))).map { Float(0.3 * sin(Double($0) * 0.05)) }
        for range in quiet { for index in range { samples[Int(index)] *= 0.001 } }
        return samples
    }

    static func plan(_ speech: [Range<Int64>], _ samples: [Float], start: Int64 = 0) -> [Range<Int64>] {
        SpeechSegmentPlan.segments(speech: speech, samples: samples[...], start: start)
    }

    @Test("a silence of 2 s or more separates segments; shorter pauses stay inside one")
    func longSilencesSeparate() {
        let speech = [Self.span(1, 4), Self.span(5, 8), Self.span(10.5, 12), Self.span(40, 45)]
        let segments = Self.plan(speech, Self.audio(seconds: 60))
        #expect(segments == [Self.span(1, 8), Self.span(10.5, 12), Self.span(40, 45)])
    }

    @Test("a run of speech longer than 30 s is cut in its longest pause that keeps the segment within 30 s")
    func longRunCutInLongestPause() {
        // Pauses of 0.5 s (at 8 s), 1.5 s (at 16 s), 0.8 s (at 27 s) and 1.9 s (at 35 s, too late for the first cut).
        let speech = [Self.span(0, 8), Self.span(8.5, 16), Self.span(17.5, 27), Self.span(27.8, 35), Self.span(36.9, 50)]
        let segments = Self.plan(speech, Self.audio(seconds: 50))
        #expect(segments.first == Self.span(0, 16))
        #expect(segments.allSatisfy { $0.count <= SpeechSegmentPlan.maximumLength })
        #expect(segments == [Self.span(0, 16), Self.span(17.5, 35), Self.span(36.9, 50)])
    }

    @Test("speech without a pause for over 30 s is cut at its quietest moment in the second half of each segment")
    func unbrokenSpeechCutWhereQuiet() {
        // Quiet 0.1 s dips at 12 s (first half: not a candidate), 22 s and 48 s.
        let dips = [Self.span(12, 12.1), Self.span(22, 22.1), Self.span(48, 48.1)]
        let samples = Self.audio(seconds: 70, quiet: dips)
        let segments = Self.plan([Self.span(0, 70)], samples)
        #expect(segments.count == 3)
        #expect(segments.allSatisfy { $0.count <= SpeechSegmentPlan.maximumLength && !$0.isEmpty })
        #expect(segments.first?.lowerBound == 0 && segments.last?.upperBound == Self.span(0, 70).upperBound)
        for (a, b) in zip(segments, segments.dropFirst()) { #expect(a.upperBound == b.lowerBound) }
        let cuts = segments.dropLast().map { Double($0.upperBound) / Double(Self.rate) }
        #expect(abs(cuts[0] - 22.05) < 0.05, "cuts \(cuts)")
        #expect(abs(cuts[1] - 48.05) < 0.05, "cuts \(cuts)")
    }

    @Test("spans are joined where they overlap, clipped to the audio, and keep their timeline positions")
    func timelinePositions() {
        let start: Int64 = 100 * Self.rate
        let speech = [Self.span(99, 101), Self.span(100.5, 102), Self.span(103, 104), Self.span(109, 200)]
        let segments = Self.plan(speech, Self.audio(seconds: 10), start: start)
        #expect(segments == [Self.span(100, 104), Self.span(109, 110)])
        #expect(Self.plan([], Self.audio(seconds: 10), start: start).isEmpty)
    }
}
