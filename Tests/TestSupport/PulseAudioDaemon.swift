import Foundation
import SpeechAudio

/// A PulseAudio daemon of a test's own, in a temporary folder, with a virtual microphone: a null sink called
/// `virtual` (48 kHz stereo Float32) whose monitor, `virtual.monitor`, is the default source. Audio played into the
/// sink (`play`) is what the source captures, in real time.
///
/// Live tests share one process environment (`PULSE_SERVER` points the code under test at the daemon), so they run
/// one at a time: use `withPulseAudio`, which serializes them across suites.
public final class PulseAudioDaemon: @unchecked Sendable {
    // @unchecked: `stopped` is only touched under `lock`; `silence` is set in init and read under `lock` after.
    public let directory: URL
    /// `unix:<directory>/native`: what `PULSE_SERVER` is set to.
    public let serverAddress: String
    private let pid: pid_t
    private var silence: Process?
    private let lock = NSLock()
    private var stopped = false

    /// Starts a daemon and waits until it answers (a few seconds at most).
    public init(sinkRate: Int = 48_000, sinkChannels: Int = 2) throws {
        directory = try makeTemporaryDirectory("openspeech-pulse")
        let socket = directory.appendingPathComponent("native").path
        serverAddress = "unix:\(socket)"
        let script = directory.appendingPathComponent("default.pa")
        try """
        load-module module-native-protocol-unix auth-anonymous=1 socket=\(socket)
        load-module module-null-sink sink_name=virtual rate=\(sinkRate) channels=\(sinkChannels) format=float32le
        set-default-sink virtual
        set-default-source virtual.monitor

        """.write(to: script, atomically: true, encoding: .utf8)
        // The daemon forks itself off (--daemonize=yes): Foundation's Process cannot watch a child that closes every
        // file descriptor, as pulseaudio does, and would hang waiting for it. The first process returns once the
        // daemon is ready; the daemon's pid is in its runtime folder.
        // -n: no default configuration; --exit-idle-time=-1: it lives until stopped. As root it runs in user mode
        // with a warning, which is what a per-test daemon wants.
        let result = try runCommand("pulseaudio", [
            "--daemonize=yes", "-n", "--file=\(script.path)", "--exit-idle-time=-1", "--use-pid-file=yes",
            "--log-target=file:\(directory.appendingPathComponent("daemon.log").path)", "--log-level=error",
        ], environment: [
            "HOME": directory.path, "XDG_RUNTIME_DIR": directory.path, "PULSE_RUNTIME_PATH": directory.path,
            "XDG_CONFIG_HOME": directory.path, "DBUS_SESSION_BUS_ADDRESS": "disabled:",
        ], check: false)
        guard result.status == 0,
              let text = try? String(contentsOf: directory.appendingPathComponent("pid"), encoding: .utf8),
              let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            try? FileManager.default.removeItem(at: directory)
            throw DaemonError(description: "pulseaudio did not start: \(result.stderr)")
        }
        self.pid = pid
        // A microphone delivers audio all the time; a null sink's monitor only while something plays into it. Silence
        // played without end makes the virtual input behave like a microphone in a quiet room.
        let silence = Process()
        silence.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        silence.arguments = ["pacat", "--playback", "--device=virtual", "--format=float32le", "--rate=48000",
                             "--channels=1", "--latency-msec=20", "/dev/zero"]
        silence.environment = ProcessInfo.processInfo.environment.merging(["PULSE_SERVER": serverAddress]) { $1 }
        silence.standardOutput = FileHandle.nullDevice
        silence.standardError = FileHandle.nullDevice
        silence.standardInput = FileHandle.nullDevice
        try silence.run()
        self.silence = silence
        try warmUp()
    }

    /// Waits until the virtual input delivers audio. A fresh null sink renders its first block at its idle size
    /// (about 2 s) whatever latency its clients ask for; after that block, audio comes every few milliseconds.
    private func warmUp() throws {
        let recorder = Process()
        recorder.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        recorder.arguments = ["parec", "--device=virtual.monitor", "--format=float32le", "--rate=48000", "--channels=2",
                              "--latency-msec=10"]
        recorder.environment = ProcessInfo.processInfo.environment.merging(["PULSE_SERVER": serverAddress]) { $1 }
        let pipe = Pipe()
        recorder.standardOutput = pipe
        recorder.standardError = FileHandle.nullDevice
        recorder.standardInput = FileHandle.nullDevice
        try recorder.run()
        let deadline = Date().addingTimeInterval(5)
        var received = 0
        while received < 3_840, Date() < deadline {
            let data = pipe.fileHandleForReading.availableData
            if data.isEmpty { break }
            received += data.count
        }
        kill(recorder.processIdentifier, SIGKILL)
        recorder.waitUntilExit()
        guard received >= 3_840 else { throw DaemonError(description: "the virtual input delivered no audio: " + log) }
    }

    deinit { stop() }

    /// The daemon's log (errors only).
    public var log: String {
        (try? String(contentsOf: directory.appendingPathComponent("daemon.log"), encoding: .utf8)) ?? ""
    }

    /// The environment that points PulseAudio clients (pactl, paplay, the openspeech tool) at this daemon.
    public var environment: [String: String] { ["PULSE_SERVER": serverAddress] }

    /// Runs `pactl` against this daemon.
    @discardableResult
    public func pactl(_ arguments: [String]) throws -> String {
        try runCommand("pactl", arguments, environment: environment).stdoutText
    }

    /// Adds another null sink called `name` (its monitor is `name.monitor`); returns the module index to unload.
    public func addVirtualInput(_ name: String, rate: Int = 48_000, channels: Int = 2) throws -> String {
        try pactl(["load-module", "module-null-sink", "sink_name=\(name)", "rate=\(rate)", "channels=\(channels)",
                   "format=float32le"]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Plays mono Float32 `samples` at `rate` into `sink` in real time; returns when they have been played.
    public func play(_ samples: [Float], rate: Int, sink: String = "virtual") async throws {
        let file = directory.appendingPathComponent("play-\(UUID().uuidString.prefix(8)).raw")
        try samples.withUnsafeBufferPointer { try Data(buffer: $0).write(to: file) }
        defer { try? FileManager.default.removeItem(at: file) }
        let process = try startPlaying(file, rate: rate, sink: sink)
        while process.isRunning { try await Task.sleep(for: .milliseconds(20)) }
        guard process.terminationStatus == 0 else { throw DaemonError(description: "pacat failed: " + log) }
    }

    /// Starts playing a raw mono Float32 file at `rate` into `sink`; the process ends when it has been played.
    public func startPlaying(_ file: URL, rate: Int, sink: String = "virtual") throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["pacat", "--playback", "--device=\(sink)", "--format=float32le", "--rate=\(rate)",
                             "--channels=1", "--latency-msec=300", file.path]  // room for a busy machine: no underruns
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// Stops the daemon and removes its folder.
    public func stop() {
        lock.lock()
        defer { lock.unlock() }
        guard !stopped else { return }
        stopped = true
        if let silence, silence.isRunning {
            kill(silence.processIdentifier, SIGKILL)  // pacat drains its input on SIGTERM: /dev/zero never ends
            silence.waitUntilExit()
        }
        kill(pid, SIGTERM)
        let deadline = Date().addingTimeInterval(5)
        while isAlive, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        if isAlive { kill(pid, SIGKILL) }
        try? FileManager.default.removeItem(at: directory)
    }

    /// Whether the daemon runs (a zombie waiting for a parent that does not reap it does not count).
    private var isAlive: Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return false }
        return !stat[stat.index(after: close)...].hasPrefix(" Z")
    }

    struct DaemonError: Error, CustomStringConvertible { let description: String }
}

/// Serializes live-audio tests across suites (they share `PULSE_SERVER` and the audio session).
public actor LiveAudioLock {
    public static let shared = LiveAudioLock()
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    public func acquire() async {
        guard busy else { busy = true; return }
        await withCheckedContinuation { waiting.append($0) }
    }

    public func release() {
        if waiting.isEmpty { busy = false } else { waiting.removeFirst().resume() }
    }
}

/// Runs `body` with a fresh daemon that the process's `PULSE_SERVER` points at, alone among live-audio tests; the
/// daemon is stopped afterwards.
public func withPulseAudio<T>(_ body: (PulseAudioDaemon) async throws -> T) async throws -> T {
    await LiveAudioLock.shared.acquire()
    do {
        let daemon = try PulseAudioDaemon()
        setenv("PULSE_SERVER", daemon.serverAddress, 1)
        defer {
            unsetenv("PULSE_SERVER")
            daemon.stop()
        }
        let result = try await body(daemon)
        await LiveAudioLock.shared.release()
        return result
    } catch {
        await LiveAudioLock.shared.release()
        throw error
    }
}

/// Runs `body` with `PULSE_SERVER` pointing where no server listens, alone among live-audio tests.
public func withoutPulseAudio<T>(_ body: () async throws -> T) async throws -> T {
    await LiveAudioLock.shared.acquire()
    let folder = try makeTemporaryDirectory("openspeech-no-pulse")
    setenv("PULSE_SERVER", "unix:\(folder.path)/no-server-here", 1)
    defer {
        unsetenv("PULSE_SERVER")
        try? FileManager.default.removeItem(at: folder)
    }
    do {
        let result = try await body()
        await LiveAudioLock.shared.release()
        return result
    } catch {
        await LiveAudioLock.shared.release()
        throw error
    }
}
