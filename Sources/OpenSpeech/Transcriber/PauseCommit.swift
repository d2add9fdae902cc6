/// When volatile transcription commits at a pause: once the `SpeechDetector` sharing the analyzer has closed a
/// region of speech (heard its `minSilenceDuration` of silence after it) and no new speech has begun, the words of
/// that speech are made final at once from one decoding of the window, as at the end of the audio, rather than when
/// two agreement decodings a second apart agree on them. The last words before a pause are the ones LocalAgreement
/// holds longest (nothing after them confirms them until the next decoding), and the pause is where a listener
/// expects the text to settle. A pure function of the detector's regions, tested without a model.
///
/// With a detector, the pause is also where words become final at all while the window is short
/// (`agreementCommits`): words two decodings agree on stay volatile until the pause's decoding of the whole utterance,
/// as file transcription decodes a speech chunk, instead of being fixed from decodings of its first seconds. Over the
/// English corpus fed at once (tiny.en, `live-bench finals`) the finals' WER went from 9.74 to 9.29 % in float32 and
/// from 10.63 to 9.23 % in int8, file mode 8.85 % (BENCHMARKS.md, "live finals decided at the detector's pauses").
enum PauseCommit {
    /// The window's length (seconds) from which agreed words are committed without waiting for a pause: an utterance
    /// that long with no pause still gets finals well before Whisper's 30 s window is full.
    static let agreementOnlyFrom = 20.0

    /// Whether an agreement decoding commits the words it agrees on: always without a detector (LocalAgreement-2),
    /// with one only once the window reaches `agreementOnlyFrom` seconds (before, the pause commits).
    static func agreementCommits(windowSeconds: Double, detectorPresent: Bool) -> Bool {
        !detectorPresent || windowSeconds >= agreementOnlyFrom
    }

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
