import Foundation

/// One window of a long-form transcription, decoded as faster-whisper's seek loop does, in named steps: encode it,
/// decide its language, decode it after the previous text (with the temperature fallback, and without the prompt's
/// text when it copies it: `decodeWithFallback`), leave it out when silent, decode it again without the previous
/// text when all its words are anomalous or its text starts after the detector's speech, cut it before speech its
/// text steps over, seek past it, and give its segments.
extension WhisperSession {
    /// Where a window lies and what it is decoded after: fixed once its language is decided.
    struct LongFormWindow {
        /// Frame (10 ms) at which the window starts.
        let seek: Int
        /// Its frames (at most 3,000).
        let frames: Int
        let language: String
        let sotSequence: [Int]
        /// The end of the last word before the window (word times do not start before it).
        let lastSpeechTimestamp: Double
        /// The tokens of the text before, since the prompt was last reset.
        let previous: [Int]

        var timeOffset: Double { Double(seek) / WhisperSession.framesPerSecond }
        var duration: Double { Double(frames) / WhisperSession.framesPerSecond }
    }

    /// A decoding of a window and what it heard: its segments (with word times when asked), the seek after them.
    struct WindowHearing {
        var attempt: Attempt
        var segments: [Piece]
        var seek: Int
        /// The window's text ends with a single timestamp: the whole window was heard.
        var singleTimestampEnding: Bool
    }

    /// Decodes the window of `frames` frames of `mel` at `state.seek` and moves the seek past what it transcribed.
    /// Returns the window's segments, times from the start of `mel`. `speech`: a detector's speech (samples) within a
    /// range of `mel`'s samples, to cut the window where its text steps over speech (`SkippedSpeech`).
    func decodeLongFormWindow(_ mel: LogMelSpectrogram, frames: Int, state: inout LongFormState,
                              options: TranscriptionOptions, speech: ((Range<Int>) -> Int)? = nil) -> [Segment] {
        encodeLongFormWindow(mel, count: frames, state: &state, batchSize: options.encoderBatchSize)
        decideLanguage(&state, options: options)
        let window = LongFormWindow(seek: state.seek, frames: frames, language: state.language ?? "en",
                                    sotSequence: state.sotSequence, lastSpeechTimestamp: state.lastSpeechTimestamp,
                                    previous: Array(state.allTokens[state.promptResetSince...]))
        let attempt = decode(window, afterPrevious: true, state: &state, options: options)
        guard !isSilent(attempt.result, options: options),
              var hearing = retriedIfAnomalous(hearingOf(attempt, in: window, options: options), in: window,
                                               state: &state, options: options)
        else {
            state.seek += frames // left out: no speech there
            return []
        }
        if let speech {
            hearing = retriedIfStartingAfterSpeech(hearing, in: window, speech: speech, state: &state, options: options)
            cutBeforeSkippedSpeech(&hearing, in: window, speech: speech)
        }
        seek(past: hearing, in: window, state: &state, options: options)
        return segments(of: hearing, in: window, state: &state, options: options)
    }

    /// The language of the first window (when the options name none), or of each with `detectsLanguagePerWindow`.
    private func decideLanguage(_ state: inout LongFormState, options: TranscriptionOptions) {
        guard state.language == nil
            || (options.detectsLanguagePerWindow && options.language == nil && model.tokenizer.isMultilingual) else { return }
        let language = languageProbabilities().first?.language ?? "en"
        guard language != state.language else { return }
        // Text in another language as prompt pulls the decoder back into that language (it copies it).
        if state.language != nil { state.promptResetSince = state.allTokens.count }
        state.language = language
        state.sotSequence = sotSequence(language, options)
    }

    /// The window decoded with the temperature fallback, after the previous text or without it.
    private func decode(_ window: LongFormWindow, afterPrevious: Bool, state: inout LongFormState,
                        options: TranscriptionOptions) -> Attempt {
        decodeWithFallback(state.decoding, prompt: makePrompt(previous: afterPrevious ? window.previous : [],
                                                              sotSequence: window.sotSequence, options: options),
                           options: options, generator: &state.generator)
    }

    /// What `attempt` heard: its segments split at timestamps, their alternatives and word times when asked
    /// (alternatives first: they are matched to the segments by the timestamps, which word times then refine).
    private func hearingOf(_ attempt: Attempt, in window: LongFormWindow, options: TranscriptionOptions) -> WindowHearing {
        let split = {
            self.splitByTimestamps($0, timeOffset: window.timeOffset, segmentSize: window.frames,
                                   segmentDuration: window.duration, seek: window.seek)
        }
        var best = split(attempt.result.tokens)
        if options.alternatives { addAlternatives(to: &best.segments, from: attempt.result) { split($0).segments } }
        if options.wordTimestamps {
            addWordTimestamps(&best.segments, sotSequence: window.sotSequence, language: window.language,
                              options: options, numFrames: window.frames, seek: window.seek,
                              lastSpeechTimestamp: window.lastSpeechTimestamp)
        }
        return WindowHearing(attempt: attempt, segments: best.segments, seek: best.seek,
                             singleTimestampEnding: best.singleTimestampEnding)
    }

    /// Every segment made of words the audio cannot hold (`AnomalousWords`), after previous text: the model went on
    /// from its prompt, not from the audio. Decoded again without the previous text, which is taken when it writes
    /// words that are not anomalous without needing the temperature fallback; otherwise neither decoding heard words
    /// there, and the window is left out as one without speech (nil).
    private func retriedIfAnomalous(_ hearing: WindowHearing, in window: LongFormWindow, state: inout LongFormState,
                                    options: TranscriptionOptions) -> WindowHearing? {
        let anomalous = { (pieces: [Piece]) in pieces.allSatisfy { AnomalousWords.isAnomalous($0.words ?? []) } }
        guard options.wordTimestamps, !window.previous.isEmpty, !hearing.segments.isEmpty, anomalous(hearing.segments)
        else { return hearing }
        let retry = decode(window, afterPrevious: false, state: &state, options: options)
        let retried = self.hearingOf(retry, in: window, options: options)
        let taken = !isSilent(retry.result, options: options) && !retried.segments.isEmpty
            && !anomalous(retried.segments) && !tookFallback(retry, options: options)
        EngineLog.debug("window at frame \(window.seek): its words are anomalous; decoded again without the previous text: \(taken ? "taken" : "no words there, left out")")
        return taken ? retried : nil
    }

    /// Segments and words as heard (`SkippedSpeech.heard`: a word stretched over a sentence leaves it a gap).
    private func heard(_ pieces: [Piece]) -> (segments: [(start: Double, end: Double)], words: [[(start: Double, end: Double)]]) {
        SkippedSpeech.heard(segments: pieces.map { ($0.start, $0.end, $0.words ?? []) })
    }

    /// Whisper stepped over a second or more of the detector's speech before its text starts: decoded again without
    /// the previous text, taken when that text does not (`SkippedSpeech.stepsOverStart`).
    private func retriedIfStartingAfterSpeech(_ hearing: WindowHearing, in window: LongFormWindow,
                                              speech: (Range<Int>) -> Int, state: inout LongFormState,
                                              options: TranscriptionOptions) -> WindowHearing {
        func stepsOverStart(_ pieces: [Piece]) -> Bool {
            let (segments, words) = heard(pieces)
            return SkippedSpeech.stepsOverStart(segments: segments, words: words, windowStart: window.seek,
                                                windowEnd: window.seek + window.frames, speech: speech)
        }
        guard !window.previous.isEmpty, stepsOverStart(hearing.segments) else { return hearing }
        let retried = self.hearingOf(decode(window, afterPrevious: false, state: &state, options: options), in: window,
                                   options: options)
        let taken = !stepsOverStart(retried.segments)
        EngineLog.debug("window at frame \(window.seek): its text starts after speech; decoded again without the previous text: \(taken ? "taken" : "steps over it too, not taken")")
        return taken ? retried : hearing
    }

    /// The window's text steps over a second or more of the detector's speech after some of it: the segments after
    /// the step are dropped and the next window starts there (`SkippedSpeech.cut`).
    private func cutBeforeSkippedSpeech(_ hearing: inout WindowHearing, in window: LongFormWindow,
                                        speech: (Range<Int>) -> Int) {
        let (segments, words) = heard(hearing.segments)
        guard let cut = SkippedSpeech.cut(segments: segments, words: words, windowStart: window.seek,
                                          windowEnd: window.seek + window.frames, nextSeek: hearing.seek, speech: speech)
        else { return }
        EngineLog.debug("window at frame \(window.seek): its text steps over speech after \(hearing.segments[cut.kept - 1].end) s; the next window starts there")
        hearing.segments.removeLast(hearing.segments.count - cut.kept)
        hearing.seek = cut.seek
        hearing.singleTimestampEnding = false
    }

    /// The next window starts after what this one heard: at its last timestamp, or with word times at its last word's
    /// end (faster-whisper's seek), unless the whole window was heard.
    private func seek(past hearing: WindowHearing, in window: LongFormWindow, state: inout LongFormState,
                      options: TranscriptionOptions) {
        state.seek = hearing.seek
        guard options.wordTimestamps, let end = Self.lastEnd(hearing.segments) else { return }
        if !hearing.singleTimestampEnding, end > window.timeOffset {
            state.seek = Int((end * Self.framesPerSecond).rounded(.toNearestOrEven))
        }
        state.lastSpeechTimestamp = end
    }

    /// The window's segments with text, their tokens added to the text before (the prompt restarts after a window
    /// decoded at a high temperature, or always without `conditionOnPreviousText`).
    private func segments(of hearing: WindowHearing, in window: LongFormWindow, state: inout LongFormState,
                          options: TranscriptionOptions) -> [Segment] {
        let attempt = hearing.attempt
        var segments: [Segment] = []
        for piece in hearing.segments {
            let text = model.tokenizer.decode(piece.tokens)
            if piece.start == piece.end || text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { continue }
            state.allTokens.append(contentsOf: piece.tokens)
            state.segmentCount += 1
            segments.append(Segment(
                id: state.segmentCount, seek: window.seek, start: piece.start, end: piece.end, text: text,
                tokens: piece.tokens, avgLogProb: attempt.averageLogProb,
                compressionRatio: attempt.compressionRatio, noSpeechProb: attempt.result.noSpeechProb,
                temperature: attempt.temperature, words: options.wordTimestamps ? piece.words : nil,
                alternatives: piece.alternatives, language: window.language))
        }
        if !options.conditionOnPreviousText || attempt.temperature > options.promptResetOnTemperature {
            state.promptResetSince = state.allTokens.count
        }
        return segments
    }
}
