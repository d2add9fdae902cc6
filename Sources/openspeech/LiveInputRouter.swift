import Foundation
import OpenSpeech
import Synchronization

/// The microphone's buffers on their way to the transcription in use. While `keeping`, it also keeps the last
/// `keptSeconds` of audio (the transcription's own format, 16 kHz mono), so that a transcription started again in
/// another language hears the speech from its beginning (`openspeech listen` checking its likely language).
final class LiveInputRouter: Sendable {
    static let keptSeconds = 30.0

    private struct State {
        var continuation: AsyncStream<AnalyzerInput>.Continuation?
        var kept: [Float] = []
        var keeping: Bool
        var finished = false
        /// A transcription to start again in another language, on its input.
        var restart: (language: DetectedLanguage, input: AsyncStream<AnalyzerInput>)?
    }

    private let state: Mutex<State>
    private let keptLimit: Int

    init(keeping: Bool, sampleRate: Double) {
        state = Mutex(State(keeping: keeping))
        keptLimit = Int(Self.keptSeconds * sampleRate)
    }

    /// A buffer from the microphone (the tap's thread).
    func receive(_ buffer: AVAudioPCMBuffer) {
        state.withLock { state in
            state.continuation?.yield(AnalyzerInput(buffer: buffer))
            guard state.keeping, let channel = buffer.floatChannelData?[0] else { return }
            state.kept.append(contentsOf: UnsafeBufferPointer(start: channel, count: Int(buffer.frameLength)))
            // The oldest audio goes in pieces, not at every buffer.
            if state.kept.count > 2 * keptLimit { state.kept.removeFirst(state.kept.count - keptLimit) }
        }
    }

    /// The input of a new transcription: the audio kept so far first (`replaying`), then the microphone's buffers.
    /// The previous input ends. Empty once `finish()` was called.
    func input(replaying: Bool) -> AsyncStream<AnalyzerInput> {
        let (stream, continuation) = AsyncStream<AnalyzerInput>.makeStream()
        state.withLock { state in
            state.continuation?.finish()
            guard !state.finished else {
                continuation.finish()
                return
            }
            if replaying, !state.kept.isEmpty {
                continuation.yield(AnalyzerInput(buffer: MonoAudio.buffer(Array(state.kept.suffix(keptLimit)))))
            }
            state.continuation = continuation
        }
        return stream
    }

    /// Ends the current input so that the transcription starts again in `language`, on an input that replays the
    /// audio kept (`takeRestart()`), and stops keeping audio.
    func restart(in language: DetectedLanguage) {
        let input = input(replaying: true)
        state.withLock { state in
            state.restart = (language, input)
            state.keeping = false
            state.kept = []
        }
    }

    /// The restart asked for since the last call, if any.
    func takeRestart() -> (language: DetectedLanguage, input: AsyncStream<AnalyzerInput>)? {
        state.withLock { state in
            defer { state.restart = nil }
            return state.finished ? nil : state.restart
        }
    }

    /// The audio kept so far (its last `keptSeconds`).
    var kept: [Float] { state.withLock { Array($0.kept.suffix(keptLimit)) } }

    /// Stops keeping audio (the language is decided) and lets go of what was kept.
    func stopKeeping() {
        state.withLock { state in
            state.keeping = false
            state.kept = []
        }
    }

    /// The microphone stopped (Ctrl-C, or a capture failure): the current input ends, and no other starts.
    func finish() {
        state.withLock { state in
            state.finished = true
            state.continuation?.finish()
            state.continuation = nil
        }
    }

    var isFinished: Bool { state.withLock { $0.finished } }
}
