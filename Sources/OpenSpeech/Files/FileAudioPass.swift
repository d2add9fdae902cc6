import Foundation
import SpeechAssets
import SpeechAudio
import SpeechEngine
import Synchronization

/// One pass over a file's audio, shared by the stages of its transcription: the file is opened and decoded once,
/// and its speech detected once. Language detection reads the file's start through `detectionRead()` (the speech
/// detector scoring what it reads, `detectionDetector()`); the transcription then reads those samples again, and the
/// rest of the file from the same reader (`read()`), and its speech detector hands out the scores already computed
/// before scoring the rest (`transcriptionDetector()`). Both stages see exactly what they would reading the file
/// alone: the same samples, and the same speech probabilities (each 32 ms chunk's score depends only on the audio
/// before it, never on how the audio was cut into buffers).
///
/// The stages run one after the other (detection, then transcription), each from one task at a time; the lock only
/// makes handing the pass from one to the other safe.
final class FileAudioPass: Sendable {
    /// The file.
    let url: URL
    /// The duration the container declares, in seconds, if it declares one.
    let declaredDuration: Double?
    /// Where the speech detector's model is looked for (nil: no speech detection).
    private let detectorStore: ModelStore?
    private let strict: Bool
    private let state: Mutex<State>

    private struct State {
        let reader: MonoAudioReader
        /// What detection read, in the reader's pieces, kept until the transcription has read it again.
        var heard: [[Float]] = []
        /// Pieces of `heard` the transcription has read.
        var replayedPieces = 0
        var ended = false
        /// The speech detector once made (on first need, off the cooperative pool), its state after `scoredSamples`
        /// samples.
        var detector: (any VoiceActivityDetector, SpeechDetector.Backend)?
        var scoredSamples = 0
        /// The chunk scores detection computed, in order (the transcription's own, past them, are not kept).
        var scores: [Float] = []
        /// Detection's score of the audio's last partial chunk, once it has scored it (`finish()`): the end.
        var finalScore: Float??

        /// The speech detector, made now (from `store`) if it is not yet.
        mutating func detector(from store: ModelStore) -> (any VoiceActivityDetector, SpeechDetector.Backend) {
            let made = detector ?? SpeechDetector.makeVoiceActivityDetector(store: store)
            detector = made
            return made
        }

        /// Forgets every score: the detector starts again from the audio's start.
        mutating func restartScoring() {
            scores = []
            scoredSamples = 0
            finalScore = nil
            detector?.0.reset()
        }
    }

    /// Opens `url` (throws `AudioError` for a file that is missing or not audio). `detectorStore`: where the speech
    /// detector's model is (nil: no speech detection). `strict`: a truncated file is an `AudioError.corruptFile` when
    /// the transcription reaches its end (detection reads what is present either way).
    init(url: URL, strict: Bool, detectorStore: ModelStore?) throws {
        let reader = try MonoAudioReader(url: url, toleratingTruncation: true)
        self.url = url
        self.strict = strict
        self.detectorStore = detectorStore
        declaredDuration = reader.declaredDuration
        state = Mutex(State(reader: reader))
    }

    // MARK: Detection's reading

    /// The next samples of the file for detection, kept for the transcription; empty at the end.
    func detectionRead() throws -> [Float] {
        try state.withLock { state in
            guard !state.ended else { return [] }
            let samples = try state.reader.read()
            if samples.isEmpty { state.ended = true } else { state.heard.append(samples) }
            return samples
        }
    }

    /// The file's first `count` samples (fewer if it is shorter), read now as far as detection has not yet.
    func firstSamples(_ count: Int) throws -> [Float] {
        var samples = state.withLock { state in Array(state.heard.joined().prefix(count)) }
        while samples.count < count {
            let more = try detectionRead()
            if more.isEmpty { break }
            samples += more.prefix(count - samples.count)
        }
        return samples
    }

    /// Detection's view of the speech detector: the pass's own, its scores kept for the transcription. Nil without
    /// speech detection.
    func detectionDetector() -> (any VoiceActivityDetector)? {
        detectorStore == nil ? nil : DetectionScoring(pass: self)
    }

    // MARK: The transcription's reading

    /// The next samples for the transcription: what detection read, then the rest of the file; empty at the end.
    /// `strict`: throws `AudioError.corruptFile` at the end of a truncated file.
    func read() throws -> [Float] {
        try state.withLock { state in
            if state.replayedPieces < state.heard.count {
                defer {
                    state.heard[state.replayedPieces] = []
                    state.replayedPieces += 1
                }
                return state.heard[state.replayedPieces]
            }
            guard !state.ended else { return [] }
            let samples = try state.reader.read()
            if samples.isEmpty {
                state.ended = true
                if strict, let cut = state.reader.truncation { throw AudioError.corruptFile(url, detail: cut.description) }
            }
            return samples
        }
    }

    /// After the end of a truncated file: how it was cut short.
    var truncation: AudioTruncation? { state.withLock { $0.reader.truncation } }

    /// The transcription's view of the speech detector: the scores detection computed, then the detector goes on
    /// from where detection left it. Nil without speech detection.
    func transcriptionDetector() -> (any VoiceActivityDetector, SpeechDetector.Backend)? {
        guard let detectorStore else { return nil }
        let backend = state.withLock { $0.detector(from: detectorStore).1 }
        return (ReplayedScoring(pass: self), backend)
    }

    // MARK: Scoring

    /// Scores `samples` (those from `scoredSamples` on) with the pass's detector, keeping the scores when `keeping`.
    private func score(_ samples: UnsafeBufferPointer<Float>, keeping: Bool, appendingTo probabilities: inout [Float]) {
        guard let detectorStore else { return }
        let samples = Array(samples)  // a value the lock's region can take (one copy per buffer)
        state.withLock { state in
            let first = probabilities.count
            let detector = state.detector(from: detectorStore).0
            samples.withUnsafeBufferPointer { detector.process($0, appendingTo: &probabilities) }
            state.scoredSamples += samples.count
            if keeping { state.scores += probabilities[first...] }
        }
    }

    /// The score of the audio's last partial chunk, scored once (by whichever stage reaches the end first).
    private func finalScore() -> Float? {
        guard let detectorStore else { return nil }
        return state.withLock { state in
            if let score = state.finalScore { return score }
            let score = state.detector(from: detectorStore).0.finish()
            state.finalScore = .some(score)
            return score
        }
    }

    /// Detection's scoring: every score also kept.
    private final class DetectionScoring: VoiceActivityDetector {
        let pass: FileAudioPass
        init(pass: FileAudioPass) { self.pass = pass }

        var chunksProcessed: Int { pass.state.withLock { $0.scoredSamples / VoiceActivityDetection.chunkLength } }
        var pendingSampleCount: Int { pass.state.withLock { $0.scoredSamples % VoiceActivityDetection.chunkLength } }

        func process(_ samples: UnsafeBufferPointer<Float>, appendingTo probabilities: inout [Float]) {
            pass.score(samples, keeping: true, appendingTo: &probabilities)
        }

        func finish() -> Float? { pass.finalScore() }

        func reset() { pass.state.withLock { $0.restartScoring() } }
    }

    /// The transcription's scoring: detection's scores for the audio detection scored, the detector after.
    private final class ReplayedScoring: VoiceActivityDetector {
        let pass: FileAudioPass
        /// Samples this view was fed, and scores it handed out from detection's.
        private var fed = 0
        private var replayed = 0
        init(pass: FileAudioPass) { self.pass = pass }

        var chunksProcessed: Int { fed / VoiceActivityDetection.chunkLength }
        var pendingSampleCount: Int { fed % VoiceActivityDetection.chunkLength }

        func process(_ samples: UnsafeBufferPointer<Float>, appendingTo probabilities: inout [Float]) {
            let start = fed
            fed += samples.count
            let scored = pass.state.withLock { state in
                // Detection's scores (`scores` holds only theirs) for the chunks this view's samples complete.
                let available = min(fed / VoiceActivityDetection.chunkLength, state.scores.count)
                if available > replayed { probabilities += state.scores[replayed..<available] }
                replayed = max(replayed, available)
                return state.scoredSamples
            }
            guard fed > scored else { return }
            // Past what detection scored (never past the end it finished at): the detector goes on from there.
            let skip = max(0, scored - start)
            pass.score(UnsafeBufferPointer(rebasing: samples[skip...]), keeping: false, appendingTo: &probabilities)
        }

        func finish() -> Float? { pass.finalScore() }

        /// A gap in the timeline (files have none): the detector starts again.
        func reset() {
            fed = 0
            replayed = 0
            pass.state.withLock { $0.restartScoring() }
        }
    }
}
