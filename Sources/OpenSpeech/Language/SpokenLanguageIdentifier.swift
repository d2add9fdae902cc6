import Foundation
import SpeechAssets
import SpeechAudio
import SpeechEngine

/// Detects the language of a recording with a multilingual Whisper model: the model's language token on the first
/// 6 s of speech (`FirstLook`), else on the first 30 s (`FirstSpeech`) and more windows while it is unsure
/// (`LanguageVote`), each encoded over its audio alone, not Whisper's padding (`DetectionEncoding`); the audio's
/// first 30 s as they are, padded as faster-whisper pads them, when the speech left it unsure. Detection always runs
/// on what it needs of the model alone (`LanguageDetectionModel`, loaded once per process), never on the whole model
/// even when that is loaded (its int8 decoder step rounds otherwise): the language decided is a function of the
/// audio, whatever the process transcribed before. The work runs on a queue of its own, off the cooperative pool.
actor SpokenLanguageIdentifier {
    enum Input: Sendable {
        /// A file, read once for detection and the transcription after it.
        case file(FileAudioPass)
        case samples([Float])
    }

    private let executor = EngineExecutor(label: "openspeech.language")
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// The language of `input`'s first speech, nil when it has none. `detectsSpeech` off: its first 30 s whatever
    /// they hold. Throws `AudioError` for a file that cannot be read, `SFSpeechError(.noModel)` when the model is
    /// not installed.
    func identify(_ input: Input, modelID: String, computeType: ComputeType, threads: Int?, detectsSpeech: Bool,
                  store: ModelStore) async throws -> DetectedLanguage? {
        guard let directory = store.installedDirectory(for: modelID) else {
            throw SFSpeechError(.noModel, "Language detection needs the multilingual model \(modelID), which is not "
                + "installed. Install it with `openspeech models install \(modelID)`, or give the language.")
        }
        // Language detection is Whisper's (the one family that names languages).
        let key = ModelCache.Key(family: .whisper, directory: directory, computeType: computeType, threads: threads)
        return try DetectionModelCache.shared.withSession(key) { session in
            try identify(input, session: session, detectsSpeech: detectsSpeech, store: store)
        }
    }

    private func identify(_ input: Input, session: LanguageDetectionSession, detectsSpeech: Bool,
                          store: ModelStore) throws -> DetectedLanguage? {
        let speech: FirstSpeech
        switch input {
        case .file(let audio):
            speech = FirstSpeech(next: { try audio.detectionRead() }, detector: audio.detectionDetector())
        case .samples(let samples):
            var offset = 0
            speech = FirstSpeech(next: {
                let end = min(offset + (1 << 16), samples.count)
                defer { offset = end }
                return Array(samples[offset..<end])
            }, detector: detectsSpeech ? SpeechDetector.makeVoiceActivityDetector(store: store).0 : nil)
        }
        var vote = try Self.vote(speech, session: session)
        // Still unsure after the speech: the audio's first 30 s as they are (what faster-whisper hears) count too, in
        // case the detector cut what told the language apart.
        if detectsSpeech && vote.windows > 0 && !vote.isSure {
            let raw = try Self.firstWindow(of: input)
            if !raw.isEmpty { vote.add(try session.detectLanguage(samples: raw, encodedPositions: nil)) }
        }
        return vote.result
    }

    /// Hears windows of `speech` until the vote is decided.
    static func vote(_ speech: FirstSpeech, session: LanguageDetectionSession,
                     encoding: DetectionEncoding = DetectionEncoding(), look: FirstLook = FirstLook()) throws -> LanguageVote {
        var vote = LanguageVote()
        // A short first look, enough when the language is plain in it.
        let first = try speech.peek(maxSamples: look.samples + 1)
        if look.applies(toAvailable: first.count) {
            let window = Array(first.prefix(look.samples))
            let ranked = try session.detectLanguage(samples: window, encodedPositions: encoding.positions(forSamples: window.count))
            if let top = ranked.first, look.decides(probability: top.probability) {
                vote.add(ranked)
                return vote
            }
        }
        while !vote.isDecided, let window = try speech.nextWindow() {
            try Task.checkCancellation()
            vote.add(try session.detectLanguage(samples: window, encodedPositions: encoding.positions(forSamples: window.count)))
        }
        return vote
    }

    /// The first 30 s of `input`, silence and all.
    static func firstWindow(of input: Input) throws -> [Float] {
        switch input {
        case .samples(let samples): return Array(samples.prefix(FirstSpeech.windowSamples))
        case .file(let audio): return try audio.firstSamples(FirstSpeech.windowSamples)
        }
    }
}
