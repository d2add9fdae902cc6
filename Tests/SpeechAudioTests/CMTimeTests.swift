import SpeechAudio
import Testing

@Suite struct CMTimeTests {
    @Test func secondsAndRounding() {
        #expect(CMTime(value: 3, timescale: 2).seconds == 1.5)
        let rounded = CMTime(seconds: 1.00005, preferredTimescale: 1_000)
        #expect(rounded.value == 1_000)
        #expect(rounded.hasBeenRounded)
        #expect(CMTime(seconds: 2.5, preferredTimescale: 16_000).value == 40_000)
        #expect(!CMTime(seconds: 2.5, preferredTimescale: 16_000).hasBeenRounded)
        #expect(CMTime(seconds: -0.0015, preferredTimescale: 1_000).value == -2) // half away from zero
        #expect(CMTime(seconds: .nan, preferredTimescale: 1).isValid == false)
        #expect(CMTime(seconds: .infinity, preferredTimescale: 1) == .positiveInfinity)
        #expect(CMTime(value: 1, timescale: 0) == .invalid)
        #expect(CMTime.zero.seconds == 0 && CMTime.invalid.seconds.isNaN)
    }

    @Test func arithmeticAcrossTimescales() {
        let a = CMTime(value: 1, timescale: 3) // 1/3 s
        let b = CMTime(value: 1, timescale: 2) // 1/2 s
        let sum = a + b
        #expect(sum.timescale == 6 && sum.value == 5 && !sum.hasBeenRounded)
        #expect((b - a).value == 1 && (b - a).timescale == 6)
        #expect((a * Int32(6)).seconds == 2)
        // Timescales whose common multiple overflows 32 bits: the larger is used, with rounding.
        let odd = CMTime(value: 1, timescale: 1_000_003) + CMTime(value: 1, timescale: 999_983)
        #expect(odd.timescale == 1_000_003 && odd.hasBeenRounded)
        #expect(abs(odd.seconds - (1 / 1_000_003.0 + 1 / 999_983.0)) < 1e-6)
        // Infinities absorb, invalid poisons.
        #expect(CMTime.positiveInfinity + a == .positiveInfinity)
        #expect((a + .invalid).isValid == false)
        #expect((CMTime.positiveInfinity + .negativeInfinity).isValid == false)
        #expect(-CMTime.positiveInfinity == .negativeInfinity)
    }

    @Test func comparisonAndHashingAcrossTimescales() {
        let half = CMTime(value: 1, timescale: 2)
        let alsoHalf = CMTime(value: 8_000, timescale: 16_000)
        #expect(half == alsoHalf)
        #expect(Set([half, alsoHalf]).count == 1)
        #expect(CMTime(value: 7_999, timescale: 16_000) < half)
        #expect(CMTime.negativeInfinity < CMTime(value: -1_000_000, timescale: 1))
        #expect(CMTime(value: Int64.max / 2, timescale: 1) < .positiveInfinity)
        #expect(CMTime.positiveInfinity < .invalid)
        #expect(CMTimeCompare(half, alsoHalf) == 0)
        // Huge values compare exactly across timescales (no overflow).
        let big = CMTime(value: Int64.max / 3, timescale: 1_000_000_000)
        #expect(big > CMTime(value: Int64.max / 3 - 1, timescale: 1_000_000_000))
        #expect(CMTime(value: 1, timescale: 48_000).convertScale(16_000).value == 0)
        #expect(CMTime(value: 2, timescale: 48_000).convertScale(16_000).value == 1) // 0.667 rounds to 1
        #expect(CMTime(value: 2, timescale: 48_000).convertScale(16_000, method: .roundTowardZero).value == 0)
    }

    @Test func ranges() {
        let range = CMTimeRange(start: CMTime(value: 1, timescale: 1), duration: CMTime(value: 3, timescale: 2))
        #expect(range.end == CMTime(value: 5, timescale: 2))
        #expect(range.containsTime(CMTime(value: 16_000, timescale: 16_000)))
        #expect(!range.containsTime(range.end)) // half-open
        #expect(range.containsTime(CMTime(value: 39_999, timescale: 16_000)))
        let other = CMTimeRange(start: CMTime(value: 2, timescale: 1), end: CMTime(value: 4, timescale: 1))
        #expect(other.duration.seconds == 2)
        #expect(range.intersection(other) == CMTimeRange(start: CMTime(value: 2, timescale: 1),
                                                         end: CMTime(value: 5, timescale: 2)))
        #expect(range.union(other) == CMTimeRange(start: CMTime(value: 1, timescale: 1),
                                                  end: CMTime(value: 4, timescale: 1)))
        let apart = CMTimeRange(start: CMTime(value: 10, timescale: 1), duration: CMTime(value: 1, timescale: 1))
        #expect(range.intersection(apart).isEmpty)
        #expect(CMTimeRange(start: CMTime(value: 2, timescale: 1), end: CMTime(value: 1, timescale: 1)).isValid == false)
        #expect(range.containsTimeRange(CMTimeRange(start: CMTime(value: 3, timescale: 2),
                                                    duration: CMTime(value: 1, timescale: 2))))
        #expect(CMTimeRange(start: .zero, end: .positiveInfinity).containsTime(CMTime(value: 1 << 40, timescale: 1)))
    }
}
