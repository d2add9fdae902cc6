import Testing
@testable import SpeechEngine

/// Where long audio is cut into clips for a model that hears a clip whole (`ClipCuts`): a pure policy, no model.
@Suite struct ClipCutsTests {
    /// 10 samples a "second", clips of 10 to 20 s, pauses of 1 s: small numbers the cases can be read in.
    let cuts = ClipCuts(longest: 200, shortest: 100, pause: 10)

    /// A tone of amplitude 0.5 with silence over `quiet` (sample ranges).
    func audio(_ count: Int, quiet: [Range<Int>] = []) -> [Float] {
        (0..<count).map { i in quiet.contains { $0.contains(i) } ? 0 : (i % 2 == 0 ? 0.5 : -0.5) }
    }

    func cut(_ samples: [Float], speech: ((Range<Int>) -> Int)? = nil) -> Int {
        samples.withUnsafeBufferPointer { cuts.nextClip($0, speech: speech) }
    }

    @Test("audio no longer than the longest clip is one clip")
    func shortAudio() {
        #expect(cut(audio(200)) == 200)
        #expect(cut(audio(37)) == 37)
        #expect(cut([]) == 0)
    }

    @Test("the cut lies in the middle of the quietest stretch after the shortest clip, within the longest")
    func quietestPause() {
        #expect(cut(audio(500, quiet: [140..<150])) == 145)
        #expect(cut(audio(500, quiet: [60..<70, 170..<180])) == 175, "a pause before the shortest clip is not taken")
        #expect(cut(audio(500, quiet: [300..<400])) == 195, "no pause within the longest clip: as late as it may be")
        #expect((100...195).contains(cut(audio(201))))
    }

    @Test("the detector's silence decides before the energy")
    func detectorFirst() {
        // Energy says 145, the detector says nobody speaks around 165.
        let speech: (Range<Int>) -> Int = { range in range.count - max(0, min(range.upperBound, 170) - max(range.lowerBound, 160)) }
        #expect(cut(audio(500, quiet: [140..<150]), speech: speech) == 165)
    }

    @Test("the cut depends on the first `longest` samples alone: how much more audio waits does not move it")
    func independentOfWhatFollows() {
        let base = audio(201, quiet: [120..<130])
        for extra in [0, 1, 50, 1_000] {
            #expect(cut(base + audio(extra, quiet: [0..<extra])) == 125)
        }
    }
}
