import Foundation
import Synchronization

extension Notification.Name {
    /// Posted by an engine whose capture stopped on its own (the input went away, the server stopped), as Apple's
    /// engine posts it when the audio hardware changes. The engine is the notification's object.
    public static let AVAudioEngineConfigurationChange = Notification.Name("AVAudioEngineConfigurationChangeNotification")
}

/// An audio engine, as in AVFoundation, for capturing the microphone on Linux through PulseAudio (or PipeWire's
/// PulseAudio server).
///
/// `inputNode` captures the input chosen by `AVAudioSession.setPreferredInput(_:)`, else the source named by
/// `PULSE_SOURCE`, else the server's default source, at that source's own rate and channel count. Taps on the input
/// node receive Float32 deinterleaved buffers with the `AVAudioTime` of their first frame (sample time counted from
/// the engine's first start, continuing across `stop()`/`start()`; host time on `CLOCK_MONOTONIC`).
///
/// Differences from Apple's engine:
/// - Nothing is played: the output and mixer nodes exist for code that refers to them; `connect`/`attach` are
///   accepted and do nothing.
/// - Capture runs on a thread of its own and hands audio to the thread that calls the taps through a bounded queue
///   (`queueSeconds`). If a tap block falls further behind than that, newer audio is dropped, counted in
///   `droppedFrameCount`, reported on stderr, and seen by the tap as a jump in `AVAudioTime.sampleTime`.
/// - When the input disappears mid-stream, capture stops: `isRunning` becomes false, `captureError` says why,
///   `captureFailureHandler` is called and `.AVAudioEngineConfigurationChange` is posted.
/// - `pause()` corks the input's stream: the device stays open and configured, nothing is captured or delivered
///   until `start()` (sample times go on from where they stopped); audio captured before the pause is still
///   delivered. `stop()` releases the device.
public final class AVAudioEngine: Sendable {
    /// The node that captures the chosen input, where taps receive its audio.
    public let inputNode: AVAudioInputNode
    /// The output node; on Linux nothing is played through it.
    public let outputNode: AVAudioOutputNode
    /// The main mixer, created with the engine; on Linux it mixes nothing.
    public let mainMixerNode: AVAudioMixerNode

    /// Seconds of audio the queue between capture and taps holds before dropping (not in Apple's API).
    public static let queueSeconds = 2.0

    private let state = Mutex(State())
    /// Held around each tap call, so `removeTap` and `stop` can wait for a call in progress (recursive: they may be
    /// called from inside a tap block).
    private let callbackLock = NSRecursiveLock()

    private struct State {
        var run: RunningCapture?
        var nextFrame: Int64 = 0
        var droppedBefore: Int64 = 0
        var error: AudioError?
        var failureHandler: (@Sendable (AudioError) -> Void)?
        /// The running capture is paused (its stream corked).
        var paused = false
    }

    /// An engine with its input, output and main mixer nodes, not yet running.
    public convenience init() {
        self.init(source: nil)
    }

    /// An engine whose input node captures `source` (a PulseAudio source name) whatever the session prefers; nil:
    /// the session's choice. For `AVCaptureSession`, which captures one device.
    package init(source: String?) {
        inputNode = AVAudioInputNode(source: source)
        outputNode = AVAudioOutputNode()
        mainMixerNode = AVAudioMixerNode()
        for node in [inputNode, outputNode, mainMixerNode] as [AVAudioNode] { node.attach(to: self) }
    }

    deinit {
        if let run = state.withLock({ $0.run }) { run.end(waitForDelivery: !run.isDeliveryThread) }
    }

    /// Whether the engine is capturing.
    public var isRunning: Bool { state.withLock { state in !state.paused && state.run.map { !$0.hasFailed } ?? false } }

    /// Prepares to start; nothing to prepare here (`start()` opens the input).
    public func prepare() {}

    /// Opens the input and starts delivering audio to the taps. Does nothing if already running.
    ///
    /// Throws `AudioError.audioServerUnreachable` when no sound server answers within a few seconds,
    /// `.audioDeviceNotFound` when the chosen input does not exist, `.noAudioInput` when there is none at all, and
    /// `.captureUnsupported` on platforms without PulseAudio.
    public func start() throws {
        #if canImport(CPulse)
        try state.withLock { (state: inout State) throws(AudioError) in
            if let run = state.run {
                guard run.hasFailed else {
                    if state.paused { run.capture.setPaused(false) }
                    state.paused = false
                    return
                }
                state.paused = false
                state.run = nil
                run.end(waitForDelivery: !run.isDeliveryThread)
                // Read once the capture thread has ended: it alone writes the position.
                state.nextFrame = run.capture.framePosition
                state.droppedBefore += run.capture.queue.droppedFrames
            }
            let capture = try PulseAudioCapture(sourceName: inputNode.sourceName,
                                                queueSeconds: Self.queueSeconds, startFrame: state.nextFrame)
            inputNode.remember(capture.format)
            state.error = nil
            let run = RunningCapture(capture: capture)
            state.run = run
            // The delivery thread holds the engine weakly: an engine its owner lets go of stops.
            run.startDelivery { [weak self] in
                var bufferings: [ObjectIdentifier: TapBuffering] = [:]
                var expectedFrame: Int64?
                var reportedDrops: Int64 = 0
                while let event = run.capture.queue.next() {
                    guard let engine = self, engine.handle(event, run: run, bufferings: &bufferings,
                                                           expectedFrame: &expectedFrame, reportedDrops: &reportedDrops)
                    else { return }
                }
            }
            capture.start()
        }
        #else
        throw AudioError.captureUnsupported
        #endif
    }

    /// Stops capture and releases the input. Taps stay installed; once this returns they are not called again
    /// (unless it is called from inside a tap block, whose current call then finishes).
    public func stop() {
        #if canImport(CPulse)
        let run = state.withLock { state -> RunningCapture? in
            defer { state.run = nil; state.paused = false }
            return state.run
        }
        guard let run else { return }
        run.end(waitForDelivery: !run.isDeliveryThread)
        // Read once the capture thread has ended: it alone writes the position.
        state.withLock { state in
            state.nextFrame = max(state.nextFrame, run.capture.framePosition)
            state.droppedBefore += run.capture.queue.droppedFrames
        }
        waitForTapCallbacks()
        #endif
    }

    /// Pauses the engine: the input stays open and configured (its stream corked), taps receive nothing more of what
    /// it hears, and `start()` resumes at once. Does nothing when not running.
    public func pause() {
        #if canImport(CPulse)
        let run = state.withLock { state -> RunningCapture? in
            guard let run = state.run, !run.hasFailed, !state.paused else { return nil }
            state.paused = true
            return run
        }
        run?.capture.setPaused(true)
        #endif
    }

    /// Resets the engine's nodes; when stopped, sample times start again from 0.
    public func reset() {
        state.withLock { state in
            if state.run == nil { state.nextFrame = 0 }
        }
    }

    /// Accepted for source compatibility; nodes other than the input carry no audio on Linux.
    public func attach(_ node: AVAudioNode) { node.attach(to: self) }
    /// Detaches a node from the engine; accepted for source compatibility.
    public func detach(_ node: AVAudioNode) { node.attach(to: nil) }
    /// Accepted for source compatibility and does nothing: Apple's connects two nodes' buses.
    public func connect(_ node1: AVAudioNode, to node2: AVAudioNode, format: AVAudioFormat?) {}
    /// Accepted for source compatibility and does nothing: Apple's disconnects a node's inputs.
    public func disconnectNodeInput(_ node: AVAudioNode) {}
    /// Accepted for source compatibility and does nothing: Apple's disconnects a node's outputs.
    public func disconnectNodeOutput(_ node: AVAudioNode) {}

    /// Frames of captured audio dropped because a tap block fell behind by more than `queueSeconds` (not in Apple's
    /// API), over the engine's life.
    public var droppedFrameCount: Int64 {
        state.withLock { $0.droppedBefore + ($0.run?.capture.queue.droppedFrames ?? 0) }
    }

    /// Why capture stopped on its own, if it did (not in Apple's API); cleared by `start()`.
    public var captureError: AudioError? { state.withLock { $0.error } }

    /// Called, on the engine's delivery thread, when capture stops on its own (not in Apple's API).
    public var captureFailureHandler: (@Sendable (AudioError) -> Void)? {
        get { state.withLock { $0.failureHandler } }
        set { state.withLock { $0.failureHandler = newValue } }
    }

    /// Returns once no tap block is running (at once when called from inside one).
    func waitForTapCallbacks() {
        callbackLock.lock()
        callbackLock.unlock()
    }

    #if canImport(CPulse)
    /// One step of the delivery thread: a chunk cut into each tap's buffers and handed to the tap blocks, or the
    /// capture's failure. Returns false when delivery is over.
    private func handle(_ event: CaptureEvent, run: RunningCapture, bufferings: inout [ObjectIdentifier: TapBuffering],
                        expectedFrame: inout Int64?, reportedDrops: inout Int64) -> Bool {
        let format = run.capture.format
        switch event {
        case .audio(let chunk):
            if let expected = expectedFrame, chunk.startFrame > expected {
                reportDrop(frames: chunk.startFrame - expected, rate: format.sampleRate,
                           byConsumer: chunk.droppedBefore > reportedDrops)
            }
            reportedDrops = chunk.droppedBefore
            expectedFrame = chunk.startFrame + Int64(chunk.frameCount)
            let taps = inputNode.installedTaps
            let live = Set(taps.values.map(ObjectIdentifier.init))
            bufferings = bufferings.filter { live.contains($0.key) }
            for (bus, tap) in taps.sorted(by: { $0.key < $1.key }) {
                let buffering = bufferings[ObjectIdentifier(tap)] ?? TapBuffering(tap: tap, captureFormat: format)
                bufferings[ObjectIdentifier(tap)] = buffering
                for (buffer, time) in buffering.append(chunk) { call(tap, onBus: bus, buffer, time, run: run) }
            }
            return true
        case .failed(let error):
            for (bus, tap) in inputNode.installedTaps {
                for (buffer, time) in bufferings[ObjectIdentifier(tap)]?.flush() ?? [] {
                    call(tap, onBus: bus, buffer, time, run: run)
                }
            }
            captureDidFail(error, run: run)
            return false
        }
    }

    private func call(_ tap: AudioTap, onBus bus: AVAudioNodeBus, _ buffer: AVAudioPCMBuffer, _ time: AVAudioTime,
                      run: RunningCapture) {
        callbackLock.lock()
        defer { callbackLock.unlock() }
        guard !run.isEnding, inputNode.installedTaps[bus] === tap else { return }
        tap.block(buffer, time)
    }

    private func captureDidFail(_ error: AudioError, run: RunningCapture) {
        let handler = state.withLock { state -> (@Sendable (AudioError) -> Void)? in
            guard state.run === run else { return nil }
            run.markFailed()
            state.error = error
            return state.failureHandler
        }
        guard run.hasFailed else { return }
        FileHandle.standardError.write(Data("openspeech: microphone: \(error)\n".utf8))
        handler?(error)
        NotificationCenter.default.post(name: .AVAudioEngineConfigurationChange, object: self)
    }
    #endif

    private func reportDrop(frames: Int64, rate: Double, byConsumer: Bool) {
        let seconds = String(format: "%.2f", Double(frames) / rate)
        let reason = byConsumer
            ? "the tap block fell more than \(Self.queueSeconds) s behind (\(droppedFrameCount) frames dropped in all); return from the tap block quickly and do slow work elsewhere"
            : "the sound server did not deliver it"
        FileHandle.standardError.write(Data("openspeech: microphone: \(seconds) s of audio (\(frames) frames) lost: \(reason)\n".utf8))
    }
}
