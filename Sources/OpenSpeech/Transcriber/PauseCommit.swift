/// When volatile transcription commits at a pause: once the `SpeechDetector` sharing the analyzer has closed a
/// region of speech (heard its `minSilenceDuration` of silence after it) and no new speech has begun, the words of
/// that speech are made final at once from one decoding of the window, as at the end of the audio, rather than when
/// two agreement decodings a second apart agree on them. The last words before a pause are the ones LocalAgreement
/// holds longest (nothing after them confirms them until the next decoding), and the pause is where a listener
/// expects the text to settle. A pure function of the detector's regions, tested without a model.
enum PauseCommit {
    /// Where to commit through (a timeline sample), or nil: the last closed region ends after `finalizedThrough`,
    /// no speech is in progress, and the commit reaches `SpeechGate.margin` past the region (the gate's words may
    /// trail into it), within the audio `received`.
    static func commitPoint(closedRegions: [Range<Int64>], speechInProgress: Bool, finalizedThrough: Int64,
                            received: Int64) -> Int64? {
        guard !speechInProgress, let last = closedRegions.last, last.upperBound > finalizedThrough else { return nil }
        let margin = Int64((SpeechGate.margin * 16_000).rounded())
        let through = min(received, last.upperBound + margin)
        return through > finalizedThrough ? through : nil
    }
}
