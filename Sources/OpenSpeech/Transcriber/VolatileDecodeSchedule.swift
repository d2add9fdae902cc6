/// When volatile transcription decodes its window: a pure value type over timeline samples and wall-clock seconds,
/// tested without a model; `LocalAgreementStrategy` asks it after each buffer.
///
/// Two kinds of decoding, so that finals stay a function of the audio alone while volatile text keeps up:
/// - **Agreement decodings**, every `agreementStep` of audio, whatever the machine's speed. Only their words go
///   through `LocalAgreement`, so the finals (and their times) are the same on a fast and a slow machine, fed in
///   real time or all at once. When decoding is slower than real time they queue up, and finals lag.
/// - **Previews**, volatile only: between agreement decodings, once `previewStep` of new audio arrived, and only
///   while the transcriber keeps up with a live source. Their words are shown as volatile text and then forgotten;
///   they never commit anything, so they may be decoded more cheaply (`PreviewDecoding`). A preview is skipped, not
///   postponed, when it would delay the next agreement decoding (the audio waiting, `backlog`, plus twice a
///   preview's expected wall time exceeds the audio still to come before that decoding: decode times vary on a busy
///   machine, and one late agreement decoding makes every later one late until the next pause), when audio is
///   waiting beyond `tolerance`, or when audio arrives faster than real time
///   (a file, or a source whose audio queued up before the analyzer started): pending decode points are coalesced
///   into the next decoding, which shows the newest audio anyway, instead of queueing. On a machine too busy to
///   decode more than once a second, there are no previews, and volatile results are the agreement decodings'.
///
/// Most of a decoding's cost is the encoder's fixed 30 s window: a cheaper search saves little (volatile decoding is
/// greedy already); a preview's encoder over the window's own audio saves most of it, and a skipped decoding all.
///
/// The backlog is estimated from wall time minus audio time at each buffer: for a live source with nothing waiting it
/// stays at its floor (the capture's latency), and rises above it by the audio waiting. Audio arriving faster than
/// real time shows as that floor still falling over the last `horizon` of audio.
struct VolatileDecodeSchedule: Sendable, Equatable {
    enum Decoding: Sendable, Equatable {
        /// Decode and commit what agrees with the previous agreement decoding.
        case agreement
        /// Decode and show the words as volatile only.
        case preview
    }

    /// `SpeechTranscriber`'s agreement step: one second of audio, with or without `.fastResults` (at half a second
    /// the decodings fell behind real time on a busy 2-core machine, and finals with them).
    static let agreementSeconds = 1.0

    /// `SpeechTranscriber`'s preview step: a quarter second with `.fastResults`, half a second without.
    static func previewSeconds(fastResults: Bool) -> Double { fastResults ? 0.25 : 0.5 }

    /// Audio between agreement decodings, in samples.
    let agreementStep: Int64
    /// New audio before a preview, in samples; nil: no previews.
    let previewStep: Int64?
    /// The backlog, and the fall of the floor over `horizon`, a preview tolerates (seconds): about a capture
    /// buffer and the delivery's jitter.
    let tolerance: Double
    /// Audio over which the floor's fall is measured, in samples.
    let horizon: Int64
    /// Samples per second.
    let rate: Double

    /// The timeline sample through which the last agreement decoding heard.
    private(set) var agreedThrough: Int64 = 0
    /// The timeline sample through which the last decoding of either kind heard.
    private(set) var decodedThrough: Int64 = 0
    /// The least (wall time − audio time) seen so far, and at the buffers of the last `horizon` of audio (the first
    /// one older than it kept).
    private var floors: [FloorMark] = []
    /// Wall time minus audio time at the last buffer.
    private var lastOffset: Double?
    /// The onset of the last utterance `speechBegan` was told of.
    private var lastOnset: Int64?
    /// No agreement decoding since an utterance began: its previews are not weighed against the next one.
    private(set) var previewAtOnset = false
    /// An agreement decoding's recent wall time (seconds; an exponential average), nil before the first.
    private(set) var decodeSeconds: Double?
    /// A preview's wall time over an agreement decoding's (an exponential average of the measured ratios; a third
    /// before the first preview). Kept as a ratio, so that the estimate follows the machine's load through the
    /// agreement decodings, which always run, and one slow preview cannot stop previews for good.
    private(set) var previewRatio = 1.0 / 3

    /// A preview's expected wall time (seconds), nil before the first agreement decoding.
    var previewSeconds: Double? { decodeSeconds.map { $0 * previewRatio } }

    struct FloorMark: Sendable, Equatable {
        var audio: Int64
        var floor: Double
    }

    init(agreementStep: Double, previewStep: Double?, tolerance: Double = 0.35, horizon: Double = 1.5,
         rate: Double = 16_000) {
        self.rate = rate
        self.agreementStep = Int64((agreementStep * rate).rounded())
        self.previewStep = previewStep.map { Int64(($0 * rate).rounded()) }
        self.tolerance = tolerance
        self.horizon = Int64((horizon * rate).rounded())
    }

    /// Seconds of audio received but not yet handed to the transcriber when the last buffer was (an estimate).
    var backlog: Double {
        guard let floor = floors.last?.floor, let lastOffset else { return 0 }
        return lastOffset - floor
    }

    /// Whether audio has been arriving at real-time pace over the last `horizon` (not faster; the first `horizon`
    /// of audio is not known to be live).
    var arrivesInRealTime: Bool {
        guard let oldest = floors.first, let newest = floors.last, newest.audio - oldest.audio >= horizon else { return false }
        return oldest.floor - newest.floor <= tolerance
    }

    /// Audio through timeline sample `audioEnd` was received at wall-clock `now` (seconds, any origin): the decoding
    /// to run now, if any.
    mutating func received(through audioEnd: Int64, at now: Double) -> Decoding? {
        let offset = now - Double(audioEnd) / rate
        lastOffset = offset
        floors.append(FloorMark(audio: audioEnd, floor: Swift.min(floors.last?.floor ?? offset, offset)))
        while floors.count > 2 && floors[1].audio <= audioEnd - horizon { floors.removeFirst() }
        if audioEnd - agreedThrough >= agreementStep { return .agreement }
        guard let previewStep, audioEnd - decodedThrough >= (previewAtOnset && decodedThrough > agreedThrough
                                                              ? followUpStep(previewStep) : previewStep),
              backlog <= tolerance, arrivesInRealTime else { return nil }
        let untilAgreement = Double(agreedThrough + agreementStep - audioEnd) / rate
        guard previewAtOnset || backlog + 2 * (previewSeconds ?? 0) <= untilAgreement else { return nil }
        return .preview
    }

    /// A decoding of `kind` took `seconds` of wall time (windows of silence, not decoded, are not measured).
    mutating func measured(_ kind: Decoding, decodeSeconds seconds: Double) {
        switch kind {
        case .agreement: decodeSeconds = decodeSeconds.map { 0.7 * $0 + 0.3 * seconds } ?? seconds
        case .preview:
            guard let decodeSeconds, decodeSeconds > 0 else { return }
            previewRatio = 0.7 * previewRatio + 0.3 * Swift.min(seconds / decodeSeconds, 2)
        }
    }

    /// A decoding of `kind` heard the audio through `audioEnd`.
    mutating func decoded(_ kind: Decoding, through audioEnd: Int64) {
        if kind == .agreement {
            agreedThrough = Swift.max(agreedThrough, audioEnd)
            previewAtOnset = false
        }
        decodedThrough = Swift.max(decodedThrough, audioEnd)
    }

    /// Speech began at timeline sample `onset` after audio with nothing to show (silence, or speech already final):
    /// steps count from it, so the first preview hears `previewStep` of the new speech and the first agreement decoding
    /// `agreementStep`, instead of falling wherever the silence's (empty) decodings left the phase: up to a step later.
    /// A function of the detector's regions, so of the audio: finals stay independent of the machine's speed.
    /// Until its first agreement decoding, its previews run even when they would delay that decoding (by a
    /// preview's time), and the second comes a quarter second after the first (`followUpStep`): after a pause nothing
    /// is waiting, an utterance's first words are what a listener waits for most, and half a second of speech often
    /// does not hold a whole word yet.
    mutating func speechBegan(at onset: Int64) {
        // Once per utterance, and only for one that began after the last agreement decoding (within a buffer's
        // jitter): never from `decodedThrough`, which previews move, so agreement decodings stay where the audio puts
        // them.
        guard onset != lastOnset else { return }
        lastOnset = onset
        guard onset + Int64(0.1 * rate) >= agreedThrough else { return }
        restart(at: onset)
        previewAtOnset = true
    }

    /// New audio before an utterance's second preview: half the step, a quarter second at least.
    private func followUpStep(_ previewStep: Int64) -> Int64 {
        Swift.max(previewStep / 2, Int64(0.25 * rate))
    }

    /// The audio before timeline sample `sample` needs no decoding (skipped, dropped or trimmed): steps count from it.
    mutating func restart(at sample: Int64) {
        agreedThrough = Swift.max(agreedThrough, sample)
        decodedThrough = Swift.max(decodedThrough, sample)
    }
}
