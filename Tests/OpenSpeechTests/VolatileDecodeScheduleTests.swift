@testable import OpenSpeech
import Testing

/// When volatile transcription decodes, without a model: a simulated transcriber whose decodings take a given time,
/// fed 100 ms buffers either as a live source delivers them (one every 100 ms of wall time) or all at once (a file).
@Suite struct VolatileDecodeScheduleTests {
    struct Run {
        var decodings: [(sample: Int64, kind: VolatileDecodeSchedule.Decoding)] = []
        /// The largest delay between a buffer's arrival and its handling, in seconds, over the run's last half.
        var lateLag = 0.0
        var agreementPoints: [Int64] { decodings.filter { $0.kind == .agreement }.map { $0.sample } }
        var previews: Int { decodings.filter { $0.kind == .preview }.count }
    }

    /// `previewSeconds`: a preview's cost when it differs from an agreement decoding's.
    static func simulate(_ schedule: VolatileDecodeSchedule, seconds: Int = 120, decodeSeconds: Double,
                         previewSeconds: Double? = nil, live: Bool) -> Run {
        var schedule = schedule
        var run = Run()
        var clock = 1_000.0  // wall seconds; any origin
        let buffers = seconds * 10
        for index in 0..<buffers {
            let arrival = live ? 1_000.0 + Double(index + 1) * 0.1 : 1_000.0
            clock = max(clock, arrival)
            if index >= buffers / 2 { run.lateLag = max(run.lateLag, clock - arrival) }
            let end = Int64(index + 1) * 1_600
            if let kind = schedule.received(through: end, at: clock) {
                clock += kind == .preview ? previewSeconds ?? decodeSeconds : decodeSeconds
                schedule.measured(kind, decodeSeconds: kind == .preview ? previewSeconds ?? decodeSeconds : decodeSeconds)
                schedule.decoded(kind, through: end)
                run.decodings.append((end, kind))
            }
        }
        return run
    }

    static let microphone = VolatileDecodeSchedule(agreementStep: 1, previewStep: 0.25)

    @Test("agreement decodings fall at the same audio whatever the machine's speed and the feed's pace")
    func agreementFollowsTheAudio() {
        let expected = (1...120).map { Int64($0) * 16_000 }
        for decodeSeconds in [0.02, 0.3, 0.9, 2.5] {
            for live in [true, false] {
                let run = Self.simulate(Self.microphone, decodeSeconds: decodeSeconds, live: live)
                #expect(run.agreementPoints == expected, "decode \(decodeSeconds) s, live \(live)")
            }
        }
    }

    @Test("a live source on a fast machine gets a preview every quarter second between agreement decodings")
    func previewsWhenKeepingUp() {
        let run = Self.simulate(Self.microphone, decodeSeconds: 0.02, live: true)
        #expect(run.previews >= 3 * 118, "\(run.previews) previews")
        #expect(run.lateLag < 0.1)
    }

    @Test("audio faster than real time (a file, a catch-up) gets no previews")
    func noPreviewsForAFile() {
        for decodeSeconds in [0.0, 0.02, 0.3] {
            #expect(Self.simulate(Self.microphone, decodeSeconds: decodeSeconds, live: false).previews == 0)
        }
    }

    @Test("when decoding is slow, previews are skipped and the transcriber keeps up with the microphone")
    func slowMachineKeepsUp() {
        // Agreement decodings alone take 30 % of real time; with a preview every 0.25 s they would take 120 %.
        let run = Self.simulate(Self.microphone, seconds: 600, decodeSeconds: 0.3, live: true)
        #expect(run.lateLag < 1, "behind by \(run.lateLag) s")
        #expect(run.previews > 0, "some previews still fit")
        // Decoding at every preview point instead (every 0.3 s with these buffers), each taking 0.4 s: the backlog
        // grows without end.
        let naive = VolatileDecodeSchedule(agreementStep: 0.25, previewStep: nil)
        #expect(Self.simulate(naive, seconds: 600, decodeSeconds: 0.4, live: true).lateLag > 60)
    }

    @Test("no preview when it would delay the next agreement decoding")
    func previewsNeverDelayAgreement() {
        // A decoding takes 0.7 s of a second of audio: a preview would push the next agreement decoding late.
        let run = Self.simulate(Self.microphone, decodeSeconds: 0.7, live: true)
        #expect(run.previews == 0)
        #expect(run.lateLag < 0.8)
    }

    @Test("previews cheaper than agreement decodings fit beside slow agreement decodings, which stay on time")
    func cheapPreviewsFit() {
        // Agreement decodings (30 s encodings) take half of each second; previews (the window's audio only) 0.05 s.
        let cheap = Self.simulate(Self.microphone, seconds: 600, decodeSeconds: 0.5, previewSeconds: 0.05, live: true)
        let full = Self.simulate(Self.microphone, seconds: 600, decodeSeconds: 0.5, live: true)
        #expect(cheap.previews >= 2 * 590, "\(cheap.previews) previews")
        #expect(full.previews < 10, "\(full.previews) previews")  // a few, until their cost is known
        #expect(cheap.lateLag < 0.7, "behind by \(cheap.lateLag) s")
        #expect(cheap.agreementPoints == (1...600).map { Int64($0) * 16_000 })
    }

    @Test("one slow preview (a busy moment) does not stop previews for good")
    func slowPreviewForgotten() {
        var schedule = Self.microphone
        schedule.measured(.agreement, decodeSeconds: 0.1)
        schedule.measured(.preview, decodeSeconds: 5)
        let run = Self.simulate(schedule, seconds: 60, decodeSeconds: 0.1, previewSeconds: 0.02, live: true)
        #expect(run.previews >= 100, "\(run.previews) previews")
    }

    @Test("without a preview step, only agreement decodings")
    func agreementOnly() {
        let schedule = VolatileDecodeSchedule(agreementStep: 0.5, previewStep: nil)
        let run = Self.simulate(schedule, seconds: 10, decodeSeconds: 0.01, live: true)
        #expect(run.previews == 0)
        #expect(run.agreementPoints == (1...20).map { Int64($0) * 8_000 })
    }

    @Test("steps count again from audio skipped or trimmed")
    func restart() {
        var schedule = Self.microphone
        schedule.restart(at: 80_000)
        let early = schedule.received(through: 81_600, at: 0)
        let due = schedule.received(through: 96_000, at: 0)
        #expect(early == nil)
        #expect(due == .agreement)
    }
    /// Buffers of 100 ms from 0 to `seconds`, live, each decoding taking `decodeSeconds` (an agreement decoding) or a
    /// third of it (a preview); the detector's utterance begins at `onset` (samples): the decodings from it on.
    static func decodingsAfter(onset: Int64, seconds: Int = 6, decodeSeconds: Double, live: Bool = true,
                               tellOnset: Bool = true) -> [(sample: Int64, kind: VolatileDecodeSchedule.Decoding)] {
        var schedule = VolatileDecodeSchedule(agreementStep: 1, previewStep: 0.5)
        var clock = 1_000.0, after: [(sample: Int64, kind: VolatileDecodeSchedule.Decoding)] = []
        for index in 0..<(seconds * 10) {
            clock = max(clock, live ? 1_000.0 + Double(index + 1) * 0.1 : 1_000.0)
            let end = Int64(index + 1) * 1_600
            if tellOnset && end > onset { schedule.speechBegan(at: onset) }
            guard let kind = schedule.received(through: end, at: clock) else { continue }
            let cost = kind == .preview ? decodeSeconds / 3 : decodeSeconds
            clock += cost
            schedule.measured(kind, decodeSeconds: cost)
            schedule.decoded(kind, through: end)
            if end > onset { after.append((end, kind)) }
        }
        return after
    }

    @Test("an utterance's first preview hears half a second of it, wherever the silence's decodings left the steps")
    func stepsFromTheOnset() {
        let told = Self.decodingsAfter(onset: 52_800, decodeSeconds: 0.05)
        #expect(told.prefix(3).map(\.sample) == [60_800, 65_600, 68_800], "\(told)")
        #expect(told.prefix(2).allSatisfy { $0.kind == .preview }, "\(told)")
        #expect(told.first { $0.kind == .agreement }?.sample == 68_800, "agreement decodings a second after the onset")
        let untold = Self.decodingsAfter(onset: 52_800, decodeSeconds: 0.05, tellOnset: false)
        #expect(untold.first?.sample == 56_000, "without the onset, the steps of the silence: \(untold)")
    }

    @Test("an utterance's first previews (half a second in, then a quarter later) run on a machine too busy for previews; later ones are weighed again")
    func firstPreviewOnBusyMachine() {
        let after = Self.decodingsAfter(onset: 52_800, decodeSeconds: 0.9)
        #expect(after.prefix(2).map(\.sample) == [60_800, 65_600] && after.prefix(2).allSatisfy { $0.kind == .preview },
                "\(after)")
        #expect(after.dropFirst(2).allSatisfy { $0.kind == .agreement }, "\(after)")
        let file = Self.decodingsAfter(onset: 52_800, decodeSeconds: 0.05, live: false)
        #expect(file.allSatisfy { $0.kind == .agreement }, "a file's onset brings no preview: \(file)")
    }
}
