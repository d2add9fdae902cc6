/// Where long audio is cut into clips for a model that hears a clip of limited length whole (Moonshine: up to about
/// 30 s, its cost the clip's length): once `longest` samples are waiting, the clip ends at the quietest moment after
/// `shortest`, a stretch of `pause` samples the detector heard no speech in when it knows, else the one of least
/// energy (the latest of equals). The cut depends on the first `longest` samples alone (and the detector's view of
/// them), so the clips, and the transcript, do not depend on how the audio arrived.
public struct ClipCuts: Sendable, Equatable {
    /// Samples a clip holds at most.
    public let longest: Int
    /// Samples a clip holds at least, unless the audio ends first.
    public let shortest: Int
    /// The length of the quiet stretch the cut is placed in the middle of, and the step between candidates.
    public let pause: Int

    public init(longest: Int, shortest: Int, pause: Int) {
        precondition(pause > 0 && shortest >= pause && longest >= shortest + pause, "ClipCuts: shortest ≥ pause, longest ≥ shortest + pause")
        self.longest = longest
        self.shortest = shortest
        self.pause = pause
    }

    /// Moonshine's: clips of 12 to 28 s (it hears up to 30 s: `MoonshineModel.longestClipSeconds`), cut in the
    /// middle of the quietest 200 ms. Fewer cuts, fewer words split or read without their context: on the corpus's
    /// 246 s chapter 28 s clips gave 6.26 % WER where 24 s clips gave 6.84 % (BENCHMARKS.md "Moonshine").
    public static let moonshine = ClipCuts(longest: 28 * 16_000, shortest: 12 * 16_000, pause: 3_200)

    /// The length of the next clip of `audio` (the audio not yet decoded, from its start): all of it when it is no
    /// longer than `longest`, else the middle of the quietest `pause` from `shortest` on within the first `longest`. `speech`
    /// gives the detector's speech samples in a range of `audio`'s indices (nil: energy alone decides).
    public func nextClip(_ audio: UnsafeBufferPointer<Float>, speech: ((Range<Int>) -> Int)? = nil) -> Int {
        guard audio.count > longest else { return audio.count }
        var best = longest, bestSpeech = Int.max, bestEnergy = Float.infinity
        var start = shortest - pause / 2
        while start + pause <= longest {
            let range = start..<(start + pause)
            let heard = speech?(range) ?? 0
            var energy: Float = 0
            for i in range { energy += audio[i] * audio[i] }
            if heard < bestSpeech || (heard == bestSpeech && energy <= bestEnergy) {
                best = start + pause / 2
                bestSpeech = heard
                bestEnergy = energy
            }
            start += pause / 2
        }
        return best
    }
}
