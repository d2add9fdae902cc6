import Foundation
import SpeechAudio
import SpeechEngine

/// Volatile results (LocalAgreement-2): the window of audio not yet final is decoded again as it grows; words two
/// consecutive agreement decodings agree on become final (`LocalAgreement`), the rest is shown as volatile, and
/// previews in between show more when the machine keeps up (`VolatileDecodeSchedule`: the finals depend on the
/// audio alone). With a detector beside the transcriber, its pauses commit what was said before them, agreement
/// only once an utterance runs 20 s without one (`PauseCommit`),
/// silence is muted (`SpeechGate`), speech a decoding skipped is decoded again (`SkippedSpeech`), and so is a decoding
/// that echoes the text before it (`PromptEcho`). Works over any
/// `WindowDecoder`.
final class LocalAgreementStrategy: TranscriptionStrategy {
    private static let rate = TranscriptionProcessor.rate
    private let decoder: any WindowDecoder
    /// Previews' own decoder, at `PreviewDecoding.computeType` (nil: previews use `decoder`).
    private let previewDecoder: (any WindowDecoder)?
    private let settings: TranscriptionProcessor.Settings
    private let prompt: ContextPrompt
    private var results: TranscriptionResultBuilder
    private let output: (SpeechTranscriber.Result) -> Void
    /// Wall-clock seconds (monotonic), for the schedule's estimate of the backlog.
    private let clock: () -> Double
    var speechRegions: SpeechRegionLog?

    /// Audio of the window not yet committed; `bufferStart` is the timeline sample of its first element.
    private var buffer: [Float] = []
    private var bufferStart: Int64 = 0
    private var agreement = LocalAgreement()
    /// Committed audio before the window, heard again by decodings of a short window.
    private var context = WindowContext()
    /// Results are final up to this timeline sample.
    private(set) var finalThrough: Int64 = 0
    /// The end of the last speech region of the detector whose words were committed at its pause (`PauseCommit`).
    private var pauseCommittedThrough: Int64 = 0
    /// When the window is decoded: agreement decodings on the audio's schedule, previews when keeping up.
    private var schedule: VolatileDecodeSchedule
    private var showingVolatile = false
    /// Detecting the language: the language decided in the first speech (nil before).
    private var liveLanguage: DetectedLanguage?
    /// Final text so far (its tail): the model's prompt for what follows.
    private var promptText: String
    /// The most audio one decoding of the window heard, in samples: what bounds a step's cost (tests read it).
    private(set) var longestWindow = 0

    init(decoder: any WindowDecoder, previewDecoder: (any WindowDecoder)?, settings: TranscriptionProcessor.Settings,
         prompt: ContextPrompt, speechRegions: SpeechRegionLog?,
         clock: @escaping () -> Double = { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 },
         output: @escaping (SpeechTranscriber.Result) -> Void) {
        self.decoder = decoder
        self.previewDecoder = previewDecoder
        self.settings = settings
        self.prompt = prompt
        self.speechRegions = speechRegions
        self.clock = clock
        self.output = output
        results = TranscriptionResultBuilder(settings: settings)
        schedule = VolatileDecodeSchedule(agreementStep: settings.stepSeconds, previewStep: settings.previewSeconds)
        promptText = settings.initialPromptText
    }

    private var windowEnd: Int64 { bufferStart + Int64(buffer.count) }

    func append(_ samples: [Float], at start: Int64) throws {
        buffer.append(contentsOf: samples)
        // An utterance beginning with no word before it pending: its decodings count from its onset
        // (`VolatileDecodeSchedule.speechBegan`). Both are functions of the audio (the detector's regions, the
        // agreement decodings' words), not of previews, so the finals stay so too.
        if let onset = speechRegions?.speechInProgressStart, agreement.pending.isEmpty {
            schedule.speechBegan(at: onset)
        }
        let decoding = schedule.received(through: windowEnd, at: clock())
        // At a pause the commit's decoding takes the place of the one scheduled.
        guard try !commitAtPause() else { return }
        switch decoding {
        case .agreement: try decodeAgreement()
        case .preview: try preview()
        case nil: break
        }
    }

    func finalize(through end: Int64) throws {
        guard end > bufferStart else { return }
        try commitWindow(through: end)
    }

    func skip(to start: Int64) {
        buffer.removeAll(keepingCapacity: true)
        bufferStart = start
        restart()
    }

    func cancel(before start: Int64) {
        let drop = Int(min(max(start - bufferStart, 0), Int64(buffer.count)))
        guard drop > 0 else { return }
        dropBuffered(drop)
        restart()
        finalThrough = max(finalThrough, bufferStart)
    }

    /// The window starts afresh at `bufferStart`: no audio before it heard again, no decoding counted.
    private func restart() {
        context.reset(at: bufferStart)
        schedule.restart(at: bufferStart)
        agreement.skip(to: Double(bufferStart) / Self.rate)
    }

    /// Decodes the window, commits the words that agree with the previous decoding, shows the rest. With a detector
    /// beside, a short window's words are only shown: its pause commits them (`PauseCommit.agreementCommits`).
    private func decodeAgreement() throws {
        let words = try windowWords(.agreement)
        schedule.decoded(.agreement, through: windowEnd)
        guard PauseCommit.agreementCommits(windowSeconds: Double(buffer.count) / Self.rate,
                                           detectorPresent: speechRegions != nil) else {
            agreement.setPending(words)
            showVolatile()
            return
        }
        commit(agreement.agree(with: words, heardThrough: Double(windowEnd) / Self.rate))
        showVolatile()
        trimWindow()
    }

    /// Decodes the window and shows its words as volatile, leaving the agreement alone (see
    /// `VolatileDecodeSchedule`): the finals do not depend on whether previews ran.
    private func preview() throws {
        // A window past Whisper's 30 s is the agreement decoding's to handle (it commits): no preview of it.
        guard buffer.count <= Int(28 * Self.rate) else { return }
        let words = try windowWords(.preview)
        schedule.decoded(.preview, through: windowEnd)
        guard !words.isEmpty || showingVolatile else { return }
        output(results.volatile(words, start: agreement.committedEnd, end: Double(windowEnd) / Self.rate,
                                language: liveLanguage?.language))
        showingVolatile = !words.isEmpty
    }

    /// When the detector beside the transcriber has closed the speech heard after the last final (a pause of its
    /// `minSilenceDuration`), that speech's words become final now, from a decoding of the window through the pause,
    /// instead of waiting for two agreement decodings (`PauseCommit`); returns whether it committed. A function of the
    /// audio alone: the analyzer gives each buffer to the detector before the transcriber, so the detector's regions
    /// at a buffer do not depend on timing.
    private func commitAtPause() throws -> Bool {
        guard let regions = speechRegions else { return false }
        let known = regions.snapshot(overlapping: bufferStart..<windowEnd, margin: 0)
        guard let through = PauseCommit.commitPoint(closedRegions: known.regions, speechInProgress: known.openStart != nil,
                                                    finalizedThrough: max(finalThrough, pauseCommittedThrough),
                                                    received: windowEnd)
        else { return false }
        pauseCommittedThrough = through
        try commitWindow(through: through)
        return true
    }

    /// Commits everything up to `endSample`, decoding the latest audio first, and drops that audio.
    private func commitWindow(through endSample: Int64) throws {
        if schedule.agreedThrough < windowEnd || agreement.pending.isEmpty {
            agreement.setPending(try windowWords(.agreement, force: true))
            schedule.decoded(.agreement, through: windowEnd)
        }
        let limit = Double(endSample) / Self.rate
        commit(agreement.takePending(endingBy: limit), through: limit)
        agreement.dropPendingBeforeCommit()
        showVolatile()
        trimWindow(force: true)
    }

    /// The words of the current window after the committed ones. The whole window is decoded with the text
    /// before it as prompt; a preview more cheaply (`Settings.previewDecoding`).
    private func windowWords(_ kind: VolatileDecodeSchedule.Decoding, force: Bool = false) throws -> [Word] {
        // Whisper hears at most 30 s: a window that grew past it (no agreement that long) is committed.
        if buffer.count > Int(28 * Self.rate) {
            commit(agreement.takeAllPending())
            trimWindow(force: true)
            if buffer.count > Int(28 * Self.rate) { // nothing recognized: keep only the last seconds
                dropBuffered(buffer.count - Int(5 * Self.rate))
                context.reset(at: bufferStart)
            }
        }
        let gate = speechRegions.map(SpeechGate.init)
        guard buffer.count >= Int(0.1 * Self.rate),
              let window = gate.map({ $0.gated(buffer, from: bufferStart) }) ?? buffer else { return [] }
        if settings.detectsLanguage && liveLanguage == nil {
            // The language is decided in the first speech, then kept: until then nothing is decoded.
            guard try decideLanguage(window, force: force) else { return [] }
        }
        // An agreement decoding of a short window hears the committed audio before it (`WindowContext`).
        var audio = window, audioStart = bufferStart, textBefore = promptText
        if kind == .agreement, let heard = context.before(windowOf: window.count) {
            let before = Array(heard.samples)
            audio = (gate.map { $0.gated(before, from: heard.start) ?? [Float](repeating: 0, count: before.count) } ?? before)
                + window
            audioStart = heard.start
            if textBefore.hasSuffix(heard.text) { textBefore = String(textBefore.dropLast(heard.text.count)) }
        }
        longestWindow = max(longestWindow, audio.count)
        var options = settings.engineOptions(phrases: prompt.phrases, engine: decoder,
                                             detectedLanguage: liveLanguage?.language)
        options.wordTimestamps = true
        options.temperatures = [0]
        // Agreement decodings hear the padded 30 s as file transcription does: their words become finals.
        let cheaper = kind == .preview ? settings.previewDecoding : nil
        if let cheaper {
            // Tokens in proportion to the speech heard, not to the window (muted audio before an utterance's first
            // half second made previews loop on for tokens no one reads).
            let windowRange = bufferStart..<(bufferStart + Int64(window.count))
            options.maxNewTokens = cheaper.maxNewTokens(forSamples: gate.map { $0.speechSamples(in: windowRange) } ?? window.count)
            options.beamSize = 1 // a preview is shown and forgotten: greedy
            options.bestOf = 1
        }
        let decoder = cheaper != nil ? previewDecoder ?? self.decoder : self.decoder
        let started = clock()
        var segments = try decoder.decodeWindow(samples: audio, previousTokens: prompt.tokens(after: textBefore),
                                                timeOffset: Double(audioStart) / Self.rate, options: options,
                                                encodedPositions: cheaper?.positions(forSamples: window.count))
        // An agreement decoding that wrote the text before it again over new audio (`PromptEcho`) is decoded again
        // without that text: its words become finals, and the next decoding's prompt.
        if cheaper == nil, !textBefore.isEmpty,
           PromptEcho().isFound(in: segments.flatMap { $0.words ?? [] }.map(\.word), promptText: textBefore) {
            EngineLog.debug("a live decoding wrote the text before it again; decoded again without it")
            textBefore = ""
            segments = try decoder.decodeWindow(samples: audio, previousTokens: prompt.tokens(after: textBefore),
                                                timeOffset: Double(audioStart) / Self.rate, options: options,
                                                encodedPositions: nil)
        }
        // An agreement decoding that stopped before speech it never wrote (`SkippedSpeech`: a second or more of the
        // detector's speech after its last word, or between two) goes on from there, as file transcription's next
        // window would: the rest of the audio decoded again after the text kept.
        if cheaper == nil, let gate,
           let resume = SkippedSpeech.resumption(after: segments, windowStart: Double(audioStart) / Self.rate,
                                                 windowEnd: Double(audioStart + Int64(audio.count)) / Self.rate,
                                                 speech: { gate.speechSamples(in: Int64($0.lowerBound)..<Int64($0.upperBound)) }) {
            let kept = segments.prefix(resume.kept)
            let from = min(max(Int((resume.seconds * Self.rate).rounded()) - Int(audioStart), 0), audio.count)
            segments = Array(kept) + (try decoder.decodeWindow(
                samples: Array(audio[from...]), previousTokens: prompt.tokens(after: textBefore + kept.map(\.text).joined()),
                timeOffset: Double(audioStart + Int64(from)) / Self.rate, options: options, encodedPositions: nil))
        }
        schedule.measured(kind, decodeSeconds: clock() - started)
        let speech = segments.filter { !($0.noSpeechProb > 0.6 && $0.avgLogProb < -1) }
        var words = speech.flatMap { $0.words ?? [] }
        if let cheaper { words = cheaper.withoutLoops(words) }
        if let gate { words = gate.keep(words) }
        return agreement.fresh(words)
    }

    /// Emits `words` as one final result covering the audio from the last commit to their end.
    private func commit(_ words: [Word], through limit: Double? = nil) {
        let from = Double(finalThrough) / Self.rate
        if let (start, end) = agreement.commit(words, from: from, through: limit),
           let (result, _) = results.final(words: words, text: words.map(\.word).joined(), start: start, end: end,
                                           confidence: words.map(\.probability).reduce(0, +) / Double(words.count),
                                           language: liveLanguage?.language) {
            output(result)
            showingVolatile = false
        }
        finalThrough = max(finalThrough, Int64((agreement.committedEnd * Self.rate).rounded()))
    }

    /// Moves committed audio out of the window once a sentence is complete, or the window passes 15 s, or
    /// when forced: its words then become prompt text.
    private func trimWindow(force: Bool = false) {
        guard agreement.committedEnd > Double(bufferStart) / Self.rate else { return }
        guard force || agreement.shouldTrim(windowSeconds: Double(buffer.count) / Self.rate) else { return }
        let drop = min(buffer.count, max(0, Int((agreement.committedEnd * Self.rate).rounded()) - Int(bufferStart)))
        let words = agreement.trimmedWords()
        context.append(buffer[..<drop], endingAt: bufferStart + Int64(drop), words: words)
        dropBuffered(drop)
        schedule.restart(at: bufferStart)
        // Committed text that loops ("to pay the money to pay the money ...", which a live run committed) is not given
        // to the model as what was said before: every later decoding would copy it (that run carried it across five
        // clips). The prompt starts again empty, as Whisper resets its prompt after a window decoded at a high
        // temperature.
        let text = promptText + words.map(\.word).joined()
        promptText = RepetitionGuard.hasLoop(text) ? "" : text.suffix(2_000).description
    }

    /// Moves the first `count` buffered samples out of the window, advancing `bufferStart` past them.
    private func dropBuffered(_ count: Int) {
        buffer.removeFirst(count)
        bufferStart += Int64(count)
    }

    private func showVolatile() {
        guard !agreement.pending.isEmpty || showingVolatile else { return }
        output(results.volatile(agreement.pending, start: agreement.committedEnd, end: Double(windowEnd) / Self.rate,
                                language: liveLanguage?.language))
        showingVolatile = !agreement.pending.isEmpty
    }

    /// Detects the language of the window's speech once there is enough of it (`LiveLanguageDecision`), or now when
    /// `force`d (the audio ends); returns whether the language is decided.
    private func decideLanguage(_ speech: [Float], force: Bool) throws -> Bool {
        let decision = LiveLanguageDecision()
        guard decision.shouldDetect(speechSamples: speech.count, force: force) else { return false }
        let window = Array(speech.prefix(FirstSpeech.windowSamples))
        let ranked = try decoder.detectLanguage(
            samples: window, encodedPositions: DetectionEncoding().positions(forSamples: window.count))
        guard let top = ranked.first else { return false }
        guard decision.accepts(probability: top.probability, speechSamples: speech.count, force: force) else { return false }
        liveLanguage = DetectedLanguage(language: top.language, probability: top.probability)
        return true
    }
}
