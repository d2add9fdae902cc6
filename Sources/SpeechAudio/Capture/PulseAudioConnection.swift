#if canImport(CPulse)
import CPulse
import Foundation

/// An audio input the sound server offers: a PulseAudio source.
struct AudioSource: Sendable, Equatable {
    /// The server's name for it (`alsa_input.usb-...`, `virtual.monitor`): what selects it.
    var name: String
    /// A person's name for it ("Built-in Audio Analog Stereo").
    var description: String
    var sampleRate: Double
    var channelCount: Int
    /// Whether it is the monitor of an output (what is played) rather than a microphone.
    var isMonitor: Bool
    /// The `device.bus` property (`usb`, `bluetooth`, `pci`...), if the server gives one.
    var bus: String?
}

/// A connection to the PulseAudio server (or PipeWire's PulseAudio server) at the address libpulse finds by itself:
/// `PULSE_SERVER`, then the client configuration, then the user's runtime folder. Never starts a server.
///
/// The connection is driven by its own `pa_mainloop`, which is not thread-safe: one thread at a time uses it.
/// `@unchecked Sendable` so that ownership can pass from the thread that connected to the capture thread; that
/// hand-over happens at thread creation, which orders everything before it. The one call made from other threads,
/// `wakeUp()`, is `pa_mainloop_wakeup`, which libpulse documents as safe from any thread.
final class PulseAudioConnection: @unchecked Sendable {
    let mainloop: OpaquePointer
    let context: OpaquePointer

    /// Connects, waiting at most `timeout` for the server to answer.
    init(clientName: String, timeout: Duration = .seconds(5)) throws(AudioError) {
        guard let mainloop = pa_mainloop_new() else { throw .audioServerUnreachable(detail: "cannot create a main loop") }
        guard let context = pa_context_new(pa_mainloop_get_api(mainloop), clientName) else {
            pa_mainloop_free(mainloop)
            throw .audioServerUnreachable(detail: "cannot create a client context")
        }
        self.mainloop = mainloop
        self.context = context
        guard pa_context_connect(context, nil, PA_CONTEXT_NOAUTOSPAWN, nil) >= 0 else {
            throw .audioServerUnreachable(detail: Self.describe(pa_context_errno(context)))
        }
        let ready = try run(until: .now + timeout) { () throws(AudioError) -> Bool? in
            switch pa_context_get_state(context) {
            case PA_CONTEXT_READY: return true
            case PA_CONTEXT_FAILED, PA_CONTEXT_TERMINATED:
                throw .audioServerUnreachable(detail: Self.describe(pa_context_errno(context)))
            default: return nil
            }
        }
        guard ready == true else {
            throw .audioServerUnreachable(detail: "the server did not answer within \(timeout)")
        }
    }

    deinit {
        pa_context_disconnect(context)
        pa_context_unref(context)
        pa_mainloop_free(mainloop)
    }

    /// Runs the main loop until `condition` returns a value or throws, or until `deadline` (then nil).
    func run<T>(until deadline: ContinuousClock.Instant, _ condition: () throws(AudioError) -> T?) throws(AudioError) -> T? {
        while true {
            if let value = try condition() { return value }
            let left = deadline - .now
            guard left > .zero else { return nil }
            let microseconds = min(Int32(left.components.seconds * 1_000_000 + left.components.attoseconds / 1_000_000_000_000), 50_000)
            pa_mainloop_prepare(mainloop, max(microseconds, 0))
            pa_mainloop_poll(mainloop)
            pa_mainloop_dispatch(mainloop)
        }
    }

    /// Waits for an operation started with `userData`'s box, then returns what the callbacks collected.
    private func complete<Box: AnyObject>(_ operation: OpaquePointer?, _ box: Box) throws(AudioError) -> Box {
        guard let operation else { throw .audioServerUnreachable(detail: Self.describe(pa_context_errno(context))) }
        defer { pa_operation_unref(operation) }
        let done = try run(until: .now + .seconds(5)) { () throws(AudioError) -> Bool? in
            if pa_context_get_state(context) != PA_CONTEXT_READY {
                throw .audioServerUnreachable(detail: Self.describe(pa_context_errno(context)))
            }
            return pa_operation_get_state(operation) == PA_OPERATION_RUNNING ? nil : true
        }
        guard done == true else { throw .audioServerUnreachable(detail: "the server did not answer within 5 seconds") }
        return box
    }

    /// The name of the server's default source ("" when it has none).
    func defaultSourceName() throws(AudioError) -> String {
        final class Box { var name = "" }
        let box = Box()
        let operation = pa_context_get_server_info(context, { _, info, userData in
            guard let info, let userData else { return }
            let box = Unmanaged<Box>.fromOpaque(userData).takeUnretainedValue()
            box.name = info.pointee.default_source_name.map { String(cString: $0) } ?? ""
        }, Unmanaged.passUnretained(box).toOpaque())
        return try complete(operation, box).name
    }

    /// Every source the server has.
    func sources() throws(AudioError) -> [AudioSource] {
        final class Box { var sources: [AudioSource] = [] }
        let box = Box()
        let operation = pa_context_get_source_info_list(context, { _, info, _, userData in
            guard let info, let userData else { return }
            let box = Unmanaged<Box>.fromOpaque(userData).takeUnretainedValue()
            let source = info.pointee
            let bus = pa_proplist_gets(source.proplist, "device.bus").map { String(cString: $0) }
            box.sources.append(AudioSource(
                name: String(cString: source.name), description: source.description.map { String(cString: $0) } ?? "",
                sampleRate: Double(source.sample_spec.rate), channelCount: Int(source.sample_spec.channels),
                isMonitor: source.monitor_of_sink != UInt32.max, bus: bus))
        }, Unmanaged.passUnretained(box).toOpaque())
        return try complete(operation, box).sources
    }

    /// The source called `name`, or the default one when `name` is nil.
    func source(named name: String?) throws(AudioError) -> AudioSource {
        let all = try sources()
        let wanted: String
        if let name { wanted = name } else { wanted = try defaultSourceName() }
        if let source = all.first(where: { $0.name == wanted }) { return source }
        if name == nil {
            // No default set: the first microphone, else the first source.
            guard let first = all.first(where: { !$0.isMonitor }) ?? all.first else { throw .noAudioInput }
            return first
        }
        throw .audioDeviceNotFound(name: wanted, available: all.map(\.name))
    }

    /// Interrupts a blocking `pa_mainloop_iterate` from any thread.
    func wakeUp() { pa_mainloop_wakeup(mainloop) }

    static func describe(_ code: Int32) -> String { String(cString: pa_strerror(code)) }
}
#endif
