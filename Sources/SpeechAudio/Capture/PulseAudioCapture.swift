#if canImport(CPulse)
import CPulse
import Foundation
import Synchronization

/// A record stream from one PulseAudio source, read on a thread of its own into a `CaptureQueue`.
///
/// The stream delivers Float32 at the source's own rate and channel count, in fragments of about 20 ms. A source that
/// disappears, or a server that goes away, fails the stream: the failure goes into the queue and the thread ends.
///
/// `@unchecked Sendable`: the libpulse objects and `nextFrame`/`failure` are used only by the thread running the
/// main loop — the thread that called `init` until `start()` creates the capture thread (thread creation orders
/// all earlier writes), then the capture thread alone. Other threads only set the atomic `stopRequested` and call
/// `pa_mainloop_wakeup`, which libpulse documents as safe from any thread; `stop()` waits for the capture thread to
/// end before returning.
final class PulseAudioCapture: @unchecked Sendable {
    let source: AudioSource
    private let connection: PulseAudioConnection
    private let stream: OpaquePointer
    /// The capture's output, bounded to `queueSeconds` of audio.
    let queue: CaptureQueue
    private var nextFrame: Int64
    private var failure: AudioError?
    private let stopRequested = Atomic(false)
    private let finished = DispatchSemaphore(value: 0)
    private let started = Atomic(false)
    /// Whether the stream should be corked (paused: the server keeps it but sends nothing); set by any thread.
    private let corkRequested = Atomic(false)
    /// Whether the stream is corked; the capture thread's alone.
    private var corked = false

    /// Opens `sourceName` (nil: the server's default source), frames numbered from `startFrame`, into a queue of
    /// `queueSeconds`. Waits at most a few seconds for the server.
    init(sourceName: String?, queueSeconds: Double, startFrame: Int64) throws(AudioError) {
        connection = try PulseAudioConnection(clientName: "OpenSpeech")
        source = try connection.source(named: sourceName)
        queue = CaptureQueue(capacityFrames: Int(source.sampleRate * queueSeconds))
        nextFrame = startFrame
        var spec = pa_sample_spec(format: PA_SAMPLE_FLOAT32LE, rate: UInt32(source.sampleRate),
                                  channels: UInt8(source.channelCount))
        guard let stream = pa_stream_new(connection.context, "microphone", &spec, nil) else {
            throw .captureFailed(detail: PulseAudioConnection.describe(pa_context_errno(connection.context)))
        }
        self.stream = stream
        let userData = Unmanaged.passUnretained(self).toOpaque()
        pa_stream_set_read_callback(stream, { stream, _, userData in
            guard let stream, let userData else { return }
            Unmanaged<PulseAudioCapture>.fromOpaque(userData).takeUnretainedValue().readAvailable(stream)
        }, userData)
        pa_stream_set_state_callback(stream, { stream, userData in
            guard let stream, let userData else { return }
            Unmanaged<PulseAudioCapture>.fromOpaque(userData).takeUnretainedValue().stateChanged(stream)
        }, userData)
        let bytesPerFrame = 4 * source.channelCount
        let fragment = UInt32(max(Int(source.sampleRate / 50), 64) * bytesPerFrame)
        var attributes = pa_buffer_attr(maxlength: UInt32.max, tlength: UInt32.max, prebuf: UInt32.max,
                                        minreq: UInt32.max, fragsize: fragment)
        // DONT_MOVE: a source that goes away fails the stream instead of silently switching to another input.
        let flags = pa_stream_flags_t(rawValue: PA_STREAM_ADJUST_LATENCY.rawValue | PA_STREAM_DONT_MOVE.rawValue)
        guard pa_stream_connect_record(stream, source.name, &attributes, flags) >= 0 else {
            throw .captureFailed(detail: PulseAudioConnection.describe(pa_context_errno(connection.context)))
        }
        let name = source.name
        let ready = try connection.run(until: .now + .seconds(5)) { () throws(AudioError) -> Bool? in
            switch pa_stream_get_state(stream) {
            case PA_STREAM_READY: return true
            case PA_STREAM_FAILED, PA_STREAM_TERMINATED:
                throw .captureFailed(detail: "\(name) could not be opened: "
                    + PulseAudioConnection.describe(pa_context_errno(connection.context)))
            default: return nil
            }
        }
        guard ready == true else { throw .captureFailed(detail: "\(name) did not start within 5 seconds") }
    }

    deinit {
        pa_stream_set_read_callback(stream, nil, nil)
        pa_stream_set_state_callback(stream, nil, nil)
        pa_stream_disconnect(stream)
        pa_stream_unref(stream)
    }

    /// The audio's format, as taps receive it: Float32, deinterleaved, the source's rate and channels.
    var format: AVAudioFormat {
        AVAudioFormat(standardFormatWithSampleRate: source.sampleRate, channels: AVAudioChannelCount(source.channelCount))!
    }

    /// The position the next frame will have.
    var framePosition: Int64 { nextFrame }

    /// Starts the capture thread.
    func start() {
        started.store(true, ordering: .sequentiallyConsistent)
        let thread = Thread { [self] in
            while !stopRequested.load(ordering: .acquiring), failure == nil {
                let cork = corkRequested.load(ordering: .acquiring)
                if cork != corked, let operation = pa_stream_cork(stream, cork ? 1 : 0, nil, nil) {
                    pa_operation_unref(operation)
                    corked = cork
                }
                if pa_mainloop_iterate(connection.mainloop, 1, nil) < 0 {
                    failure = .captureFailed(detail: "the sound server connection broke")
                }
            }
            pa_stream_set_read_callback(stream, nil, nil)
            pa_stream_disconnect(stream)
            if let failure, !stopRequested.load(ordering: .acquiring) { queue.fail(failure) }
            finished.signal()
        }
        thread.name = "OpenSpeech capture"
        thread.qualityOfService = .userInteractive
        thread.start()
    }

    /// Stops the capture thread and waits for it to end (promptly: it is woken from its wait).
    func stop() {
        stopRequested.store(true, ordering: .releasing)
        guard started.load(ordering: .sequentiallyConsistent) else { return }
        connection.wakeUp()
        finished.wait()
        finished.signal()  // a second stop() returns at once
    }

    /// Corks the stream (`true`: the input stays open, the server sends nothing) or uncorks it; takes effect on the
    /// capture thread at once.
    func setPaused(_ paused: Bool) {
        corkRequested.store(paused, ordering: .releasing)
        connection.wakeUp()
    }

    private func readAvailable(_ stream: OpaquePointer) {
        let channels = source.channelCount
        while true {
            var data: UnsafeRawPointer?
            var bytes = 0
            guard pa_stream_peek(stream, &data, &bytes) == 0, bytes > 0 else { return }
            let frames = bytes / (4 * channels)
            if let data {
                let samples = [Float](unsafeUninitializedCapacity: frames * channels) { buffer, count in
                    memcpy(buffer.baseAddress!, data, frames * channels * 4)
                    count = frames * channels
                }
                let duration = UInt64(Double(frames) / source.sampleRate * 1e9)
                let now = AVAudioTime.now()
                queue.push(CapturedChunk(samples: samples, frameCount: frames, startFrame: nextFrame,
                                         hostTime: now > duration ? now - duration : 0))
            }
            // A hole (no data) is audio the server lost: the frame count moves on, so it shows as a gap.
            nextFrame += Int64(frames)
            pa_stream_drop(stream)
        }
    }

    private func stateChanged(_ stream: OpaquePointer) {
        switch pa_stream_get_state(stream) {
        case PA_STREAM_FAILED, PA_STREAM_TERMINATED:
            guard started.load(ordering: .sequentiallyConsistent), failure == nil else { return }
            let reason = PulseAudioConnection.describe(pa_context_errno(connection.context))
            failure = .captureFailed(detail: "the input \(source.name) went away (\(reason))")
        default:
            break
        }
    }
}
#endif
