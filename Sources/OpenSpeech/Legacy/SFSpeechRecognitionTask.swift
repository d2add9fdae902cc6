import Foundation
import Synchronization

/// The stage a recognition task is in, as Apple's `SFSpeechRecognitionTaskState`.
public enum SFSpeechRecognitionTaskState: Int, Sendable {
    /// Created; no audio recognized yet.
    case starting = 0
    /// Recognizing audio.
    case running = 1
    /// The audio has ended (or `finish()` was called); the rest is being recognized.
    case finishing = 2
    /// `cancel()` was called; stopping.
    case canceling = 3
    /// Done: the final result or an error was delivered.
    case completed = 4
}

/// Told of a task's progress, as Apple's `SFSpeechRecognitionTaskDelegate`. Every method is optional, as Apple's
/// (the protocol's extension does nothing). Calls come on the recognizer's `queue`, one at a time, in order.
public protocol SFSpeechRecognitionTaskDelegate: AnyObject {
    /// Speech was first detected in the audio.
    func speechRecognitionDidDetectSpeech(_ task: SFSpeechRecognitionTask)
    /// A partial transcription (only if the request reports partial results).
    func speechRecognitionTask(_ task: SFSpeechRecognitionTask, didHypothesizeTranscription transcription: SFTranscription)
    /// The final result.
    func speechRecognitionTask(_ task: SFSpeechRecognitionTask, didFinishRecognition recognitionResult: SFSpeechRecognitionResult)
    /// All the request's audio has been read.
    func speechRecognitionTaskFinishedReadingAudio(_ task: SFSpeechRecognitionTask)
    /// The task was cancelled.
    func speechRecognitionTaskWasCancelled(_ task: SFSpeechRecognitionTask)
    /// The task ended: `successfully` false after an error or a cancellation (`task.error` says which).
    func speechRecognitionTask(_ task: SFSpeechRecognitionTask, didFinishSuccessfully successfully: Bool)
    /// How much audio was recognized, in seconds (once, before the task ends).
    func speechRecognitionTask(_ task: SFSpeechRecognitionTask, didProcessAudioDuration duration: TimeInterval)
}

extension SFSpeechRecognitionTaskDelegate {
    /// Does nothing, so delegates implement only the methods they need.
    public func speechRecognitionDidDetectSpeech(_ task: SFSpeechRecognitionTask) {}
    /// Does nothing, so delegates implement only the methods they need.
    public func speechRecognitionTask(_ task: SFSpeechRecognitionTask, didHypothesizeTranscription transcription: SFTranscription) {}
    /// Does nothing, so delegates implement only the methods they need.
    public func speechRecognitionTask(_ task: SFSpeechRecognitionTask, didFinishRecognition recognitionResult: SFSpeechRecognitionResult) {}
    /// Does nothing, so delegates implement only the methods they need.
    public func speechRecognitionTaskFinishedReadingAudio(_ task: SFSpeechRecognitionTask) {}
    /// Does nothing, so delegates implement only the methods they need.
    public func speechRecognitionTaskWasCancelled(_ task: SFSpeechRecognitionTask) {}
    /// Does nothing, so delegates implement only the methods they need.
    public func speechRecognitionTask(_ task: SFSpeechRecognitionTask, didFinishSuccessfully successfully: Bool) {}
    /// Does nothing, so delegates implement only the methods they need.
    public func speechRecognitionTask(_ task: SFSpeechRecognitionTask, didProcessAudioDuration duration: TimeInterval) {}
}

/// A recognition in progress, as Apple's `SFSpeechRecognitionTask`: its state, and `finish()` / `cancel()`.
///
/// A cancelled task that had not delivered its final result delivers an `SFSpeechError` with code
/// `.requestCanceled` to its result handler (Apple reports it in another error domain), or tells its delegate
/// `speechRecognitionTaskWasCancelled`. Audio with no speech ends the task with `.noSpeechDetected`, as Apple's.
public final class SFSpeechRecognitionTask: NSObject, Sendable {
    private struct Status {
        var state = SFSpeechRecognitionTaskState.starting
        var isFinishing = false
        var isCancelled = false
        var error: (any Error)?
        var work: Task<Void, Never>?
    }

    private let status = Mutex(Status())
    private let recognition: LegacyRecognition
    private let delivery: LegacyDelivery

    init(recognition: LegacyRecognition, queue: OperationQueue, receiver: LegacyDelivery.Receiver) {
        self.recognition = recognition
        delivery = LegacyDelivery(queue: queue, receiver: receiver)
        super.init()
        let work = Task.detached(priority: .userInitiated) { [self] in await run() }
        status.withLock { $0.work = work }
    }

    /// The task's stage.
    public var state: SFSpeechRecognitionTaskState { status.withLock(\.state) }
    /// Whether `finish()` was called or the audio ended: no more audio is taken.
    public var isFinishing: Bool { status.withLock(\.isFinishing) }
    /// Whether `cancel()` was called.
    public var isCancelled: Bool { status.withLock(\.isCancelled) }
    /// The error that ended the task, if one did.
    public var error: (any Error)? { status.withLock(\.error) }

    /// Stops taking audio and finishes recognizing the audio already taken; the final result follows.
    public func finish() {
        let stop = status.withLock { status -> Bool in
            guard status.state != .completed, !status.isCancelled, !status.isFinishing else { return false }
            status.isFinishing = true
            status.state = .finishing
            return true
        }
        if stop { recognition.stopTakingAudio() }
    }

    /// Stops recognition at once; no final result follows. Does nothing once the task has completed.
    public func cancel() {
        let work = status.withLock { status -> Task<Void, Never>? in
            guard status.state != .completed, !status.isCancelled else { return nil }
            status.isCancelled = true
            status.state = .canceling
            return status.work
        }
        if let work {
            recognition.stopTakingAudio()
            work.cancel()
        }
    }

    private func run() async {
        let outcome: Result<SFSpeechRecognitionResult, any Error>
        do {
            let result = try await recognition.run { [self] event in
                switch event {
                case .audioStarted:
                    status.withLock { if $0.state == .starting { $0.state = .running } }
                case .speechDetected:
                    delivery.send { receiver in receiver.delegate?.speechRecognitionDidDetectSpeech(self) }
                case .partial(let result):
                    delivery.send { receiver in
                        receiver.handler?(result, nil)
                        receiver.delegate?.speechRecognitionTask(self, didHypothesizeTranscription: result.bestTranscription)
                    }
                case .audioEnded(let duration):
                    status.withLock {
                        $0.isFinishing = true
                        if $0.state == .running || $0.state == .starting { $0.state = .finishing }
                    }
                    delivery.send { receiver in
                        receiver.delegate?.speechRecognitionTaskFinishedReadingAudio(self)
                        receiver.delegate?.speechRecognitionTask(self, didProcessAudioDuration: duration)
                    }
                }
            }
            outcome = .success(result)
        } catch {
            outcome = .failure(error)
        }
        let cancelled = status.withLock { status -> Bool in
            if status.isCancelled {
                status.error = SFSpeechError(.requestCanceled, "The recognition task was cancelled.")
            } else if case .failure(let error) = outcome {
                status.error = error
            }
            status.state = .completed
            return status.isCancelled
        }
        switch outcome {
        case .success(let result) where !cancelled:
            delivery.send(finishing: true) { receiver in
                receiver.handler?(result, nil)
                receiver.delegate?.speechRecognitionTask(self, didFinishRecognition: result)
                receiver.delegate?.speechRecognitionTask(self, didFinishSuccessfully: true)
            }
        default:
            let error = self.error!
            delivery.send(finishing: true) { receiver in
                receiver.handler?(nil, error)
                if cancelled { receiver.delegate?.speechRecognitionTaskWasCancelled(self) }
                receiver.delegate?.speechRecognitionTask(self, didFinishSuccessfully: false)
            }
        }
    }
}
