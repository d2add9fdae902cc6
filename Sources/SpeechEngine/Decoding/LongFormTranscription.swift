/// faster-whisper's long-form transcription (30 s windows, each starting where the last one's text ended, the
/// previous text as prompt, temperature fallback) run as audio arrives: append samples, take the segments of every
/// window whose audio is complete, finish after the last sample.
///
/// A window is decoded only once all of its audio has arrived (or the stream ended), so the segments depend on the
/// audio and the options alone, never on how the audio was cut into pieces or when it came. The log-mel floor is
/// the maximum of the audio from the start through each window's end (over a whole recording, `WhisperSession`'s
/// `transcribe(samples:)` uses the recording's maximum, as faster-whisper: the two differ only when a window is
/// quieter by 80 dB than audio after it). Memory is bounded: samples are kept from the next window's start only
/// (with `TranscriptionOptions.encoderBatchSize` N > 1, a window waits for the N windows of its batch: N · 30 s).
///
/// Not for concurrent use; it drives its session, which must not be used for anything else meanwhile.
public final class LongFormTranscription {
    public let session: WhisperSession
    public let options: TranscriptionOptions
    private let mel: LogMelSpectrogram
    private var state: WhisperSession.LongFormState?
    /// Asks for word times in the windows whose sample range it accepts, beside all windows when the options ask
    /// (e.g. windows whose audio joins two separate stretches, to place each word in its own).
    public var wordTimestampsWhere: ((Range<Int>) -> Bool)?
    /// A voice activity detector's speech (samples) within a range of the stream's samples: with it, a window whose
    /// text steps over a second or more of detected speech is cut before it and the next window starts there
    /// (`SkippedSpeech`; Whisper now and then skips a sentence).
    public var speechSamples: ((Range<Int>) -> Int)?

    public init(session: WhisperSession, options: TranscriptionOptions) {
        self.session = session
        self.options = options
        mel = LogMelSpectrogram(streamingWith: session.melTables)
    }

    /// The language the stream is transcribed in: the options' or, when they name none, the one detected on its first
    /// window (nil before that window is decoded).
    public var language: String? { state?.language }

    /// The sample where the next window starts: the transcription is final before it.
    public var decodedThrough: Int { min((state?.seek ?? 0) * LogMelSpectrogram.hop, mel.sampleCount) }

    /// Appends 16 kHz mono samples; a sample that is not finite is an `EngineError.invalidSample`.
    public func append(_ samples: [Float]) throws {
        guard !mel.ended else { throw EngineError.streamFinished }
        try WhisperSession.validate(samples)
        samples.withUnsafeBufferPointer { mel.append($0) }
    }

    /// Marks the end of the audio: the last windows become decodable.
    public func finish() { mel.finish() }

    /// Marks the end of the audio at sample `position` (at least `decodedThrough`): samples received after it are
    /// taken out and returned, for a transcription that goes on after this one.
    public func finish(at position: Int) -> [Float] {
        let rest = mel.truncate(to: max(position, decodedThrough))
        state?.encodedAhead.removeAll()   // windows encoded ahead may reach past the new end
        mel.finish()
        return rest
    }

    /// Decodes every window whose audio is complete (after `finish()`, all that is left) and returns their segments,
    /// times in seconds from the first sample.
    public func decodeAvailable() throws -> [Segment] {
        var segments: [Segment] = []
        let window = LogMelSpectrogram.windowFrames
        while true {
            let seek = state?.seek ?? 0
            let frames: Int
            if mel.ended {
                frames = min(window, mel.contentFrames - seek)
                guard frames > 0 else { break }
            } else {
                // With batched encoding, a window waits for the audio of the full windows after it (the batch).
                let batch = max(1, options.encoderBatchSize)
                guard batch == 1 ? seek + window <= mel.completeFrames : seek + batch * window < mel.completeFrames
                else { break }
                frames = window
            }
            if state == nil { state = try session.startLongForm(mel, options: options) }
            var windowOptions = options
            if !options.wordTimestamps, let wanted = wordTimestampsWhere {
                windowOptions.wordTimestamps = wanted(seek * LogMelSpectrogram.hop ..< (seek + frames) * LogMelSpectrogram.hop)
            }
            segments += session.decodeLongFormWindow(mel, frames: frames, state: &state!, options: windowOptions,
                                                     speech: speechSamples)
            mel.discard(before: state!.seek)
        }
        return segments
    }
}
