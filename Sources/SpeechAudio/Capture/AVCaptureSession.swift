import Foundation
import Synchronization

extension Notification.Name {
    /// Posted by a session whose capture could not start or stopped on its own (the input went away, the server
    /// stopped); `userInfo[AVCaptureSessionErrorKey]` holds the `AudioError`. The session is the object.
    public static let AVCaptureSessionRuntimeError = Notification.Name("AVCaptureSessionRuntimeErrorNotification")
}

/// The `userInfo` key of `.AVCaptureSessionRuntimeError`'s error.
public let AVCaptureSessionErrorKey = "AVCaptureSessionErrorKey"

/// A source of media for a capture session, as AVFoundation's `AVCaptureInput`.
public class AVCaptureInput: NSObject, @unchecked Sendable {
    // Sendable: no state of its own; the subclass's is immutable.
}

/// A capture device as a session's input, as AVFoundation's `AVCaptureDeviceInput`.
public final class AVCaptureDeviceInput: AVCaptureInput, @unchecked Sendable {
    // Sendable: its one property is immutable and Sendable.
    /// The device captured.
    public let device: AVCaptureDevice

    /// An input of `device`. Throws `AudioError.audioDeviceNotFound` when the sound server no longer has it.
    public init(device: AVCaptureDevice) throws {
        if let sources = try? AudioInputs.all(), !sources.contains(where: { $0.name == device.uniqueID }) {
            throw AudioError.audioDeviceNotFound(name: device.uniqueID, available: sources.map(\.name))
        }
        self.device = device
    }
}

/// A destination of a capture session's media, as AVFoundation's `AVCaptureOutput`.
public class AVCaptureOutput: NSObject, @unchecked Sendable {
    // Sendable: no state of its own; the subclass's is under a lock.
}

/// A session's audio as PCM buffers, as AVFoundation's `AVCaptureAudioDataOutput`. Apple's hands `CMSampleBuffer`s to
/// a delegate; this one has no delegate and feeds the speech framework's `CaptureInputSequenceProvider`, which adds
/// it to a session for its own use.
public final class AVCaptureAudioDataOutput: AVCaptureOutput, @unchecked Sendable {
    // Sendable: its receivers are under a Mutex.
    /// What a receiver is given: audio as captured (Float32 at the device's rate and channels, with the time of its
    /// first frame), then the end of the capture, with its error if it failed.
    package enum Event: Sendable {
        case audio(AVAudioPCMBuffer, AVAudioTime)
        case ended(AudioError?)
    }

    private let receivers = Mutex<[UUID: @Sendable (Event) -> Void]>([:])

    override public init() {
        super.init()
    }

    /// Calls `receiver` with each event from now on, on the session's delivery thread, one at a time.
    package func addReceiver(_ receiver: @escaping @Sendable (Event) -> Void) -> UUID {
        let id = UUID()
        receivers.withLock { $0[id] = receiver }
        return id
    }

    package func removeReceiver(_ id: UUID) {
        _ = receivers.withLock { $0.removeValue(forKey: id) }
    }

    func deliver(_ event: Event) {
        for receiver in receivers.withLock({ Array($0.values) }) { receiver(event) }
    }
}

/// Capture of one audio device, as AVFoundation's `AVCaptureSession`: add an `AVCaptureDeviceInput` and outputs,
/// then `startRunning()`.
///
/// On Linux the device is a PulseAudio source, captured as `AVAudioEngine` captures it (Float32 at the source's rate
/// and channels; audio dropped when a receiver falls seconds behind shows as a jump in the buffers' times). Differs
/// from Apple's: only audio; one device input; adding what cannot be added does nothing (Apple's raises); a capture
/// that cannot start or fails ends every output's audio with the error and posts `.AVCaptureSessionRuntimeError`.
public final class AVCaptureSession: NSObject, @unchecked Sendable {
    // Sendable: all state is under a Mutex.
    private struct State {
        var inputs: [AVCaptureInput] = []
        var outputs: [AVCaptureOutput] = []
        var engine: AVAudioEngine?
    }

    private let state = Mutex(State())

    override public init() {
        super.init()
    }

    deinit {
        state.withLock { $0.engine }?.stop()
    }

    /// The session's inputs.
    public var inputs: [AVCaptureInput] { state.withLock { $0.inputs } }
    /// The session's outputs.
    public var outputs: [AVCaptureOutput] { state.withLock { $0.outputs } }
    /// Whether the session is capturing.
    public var isRunning: Bool { state.withLock { $0.engine?.isRunning ?? false } }

    /// Whether `input` can be added: a device input, while the session has none.
    public func canAddInput(_ input: AVCaptureInput) -> Bool {
        input is AVCaptureDeviceInput && state.withLock { $0.inputs.isEmpty }
    }

    /// Adds `input` if `canAddInput(_:)`; otherwise does nothing.
    public func addInput(_ input: AVCaptureInput) {
        guard canAddInput(input) else { return }
        state.withLock { $0.inputs.append(input) }
    }

    /// Removes `input`.
    public func removeInput(_ input: AVCaptureInput) {
        state.withLock { $0.inputs.removeAll { $0 === input } }
    }

    /// Whether `output` can be added: an audio data output not already in the session.
    public func canAddOutput(_ output: AVCaptureOutput) -> Bool {
        output is AVCaptureAudioDataOutput && !state.withLock { $0.outputs.contains { $0 === output } }
    }

    /// Adds `output` if `canAddOutput(_:)`; otherwise does nothing.
    public func addOutput(_ output: AVCaptureOutput) {
        guard canAddOutput(output) else { return }
        state.withLock { $0.outputs.append(output) }
    }

    /// Removes `output`.
    public func removeOutput(_ output: AVCaptureOutput) {
        state.withLock { $0.outputs.removeAll { $0 === output } }
    }

    /// Begins a group of changes; changes take effect at once here.
    public func beginConfiguration() {}
    /// Ends a group of changes.
    public func commitConfiguration() {}

    /// Starts capturing the device input. A capture that cannot start (no sound server, no such device, no input)
    /// ends the outputs' audio with the error and posts `.AVCaptureSessionRuntimeError`.
    public func startRunning() {
        guard let device = inputs.lazy.compactMap({ ($0 as? AVCaptureDeviceInput)?.device }).first else {
            fail(.noAudioInput)
            return
        }
        guard state.withLock({ $0.engine == nil }) else { return }
        let engine = AVAudioEngine(source: device.uniqueID)
        engine.inputNode.installTap(onBus: 0, bufferSize: 4_096, format: nil) { [weak self] buffer, time in
            self?.deliver(.audio(buffer, time))
        }
        engine.captureFailureHandler = { [weak self] error in self?.fail(error) }
        do {
            try engine.start()
        } catch let error as AudioError {
            fail(error)
            return
        } catch {
            fail(.captureFailed(detail: "\(error)"))
            return
        }
        state.withLock { $0.engine = engine }
    }

    /// Stops capturing; once it returns, the outputs have been given all the audio captured and its end.
    public func stopRunning() {
        guard let engine = takeEngine() else { return }
        engine.stop()
        engine.inputNode.removeTap(onBus: 0)
        deliver(.ended(nil))
    }

    private func fail(_ error: AudioError) {
        takeEngine()?.inputNode.removeTap(onBus: 0)
        deliver(.ended(error))
        NotificationCenter.default.post(name: .AVCaptureSessionRuntimeError, object: self,
                                        userInfo: [AVCaptureSessionErrorKey: error])
    }

    /// The running engine, which the session no longer holds.
    private func takeEngine() -> AVAudioEngine? {
        state.withLock { state in defer { state.engine = nil }; return state.engine }
    }

    private func deliver(_ event: AVCaptureAudioDataOutput.Event) {
        for output in outputs { (output as? AVCaptureAudioDataOutput)?.deliver(event) }
    }
}
