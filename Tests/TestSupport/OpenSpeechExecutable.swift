import Foundation

/// The built `openspeech` tool (or another of the package's executables), beside the test bundle in the build
/// products folder.
public enum OpenSpeechExecutable {
    public static let url: URL? = url(named: "openspeech")

    /// The package's executable `name`, if built.
    public static func url(named name: String) -> URL? {
        var candidates: [URL] = []
        if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            candidates.append(URL(fileURLWithPath: exe).deletingLastPathComponent())
        }
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent())
        candidates.append(Bundle.main.bundleURL)
        for directory in candidates {
            // The test bundle may be a folder (`*.xctest/`) one level below the products folder.
            for dir in [directory, directory.deletingLastPathComponent()] {
                let tool = dir.appendingPathComponent(name)
                if FileManager.default.isExecutableFile(atPath: tool.path) { return tool }
            }
        }
        return nil
    }

    /// Starts the tool with `arguments` and extra environment; stdout and stderr are captured to files.
    public static func start(_ arguments: [String], environment: [String: String], output: URL,
                             executable: String = "openspeech") throws -> Process {
        guard let url = url(named: executable) else { throw LocateError(name: executable) }
        let process = Process()
        process.executableURL = url
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        FileManager.default.createFile(atPath: output.path, contents: nil)
        let handle = try FileHandle(forWritingTo: output)
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// Runs the tool to completion; returns its exit status and combined output. A run longer than `timeout`
    /// seconds is killed and throws.
    public static func run(_ arguments: [String], environment: [String: String], executable: String = "openspeech",
                           timeout: Double = 1_800) async throws -> (status: Int32, output: String) {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("openspeech-out-\(UUID()).txt")
        defer { try? FileManager.default.removeItem(at: log) }
        let process = try start(arguments, environment: environment, output: log, executable: executable)
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning {
            if Date() > deadline {
                process.terminate()
                throw TimeoutError(command: ([executable] + arguments).joined(separator: " "), seconds: timeout,
                                   output: (try? String(contentsOf: log, encoding: .utf8)) ?? "")
            }
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        return (process.terminationStatus, (try? String(contentsOf: log, encoding: .utf8)) ?? "")
    }

    struct LocateError: Error, CustomStringConvertible {
        let name: String
        var description: String { "the \(name) executable was not found beside the test bundle; build it (swift build) first" }
    }

    public struct TimeoutError: Error, CustomStringConvertible {
        let command: String, seconds: Double, output: String
        public var description: String { "`\(command)` ran for more than \(Int(seconds)) s (a hang?); output: \(output)" }
    }
}

/// Sends `signal` to process `pid` once `condition` holds (or after `timeout` seconds), watched from a thread of its
/// own: a poll on the cooperative pool waits behind other suites' blocking work (in CI it once ran only after a whole
/// batch was done).
public func sendSignal(_ signal: Int32, to pid: pid_t, when condition: @escaping @Sendable () -> Bool,
                       timeout: Double = 120) {
    Thread {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition() && Date() < deadline { usleep(5_000) }
        kill(pid, signal)
    }.start()
}

/// `sendSignal(_:to:when:)` once a file exists at `path`.
public func sendSignal(_ signal: Int32, to pid: pid_t, whenFileExists path: String, timeout: Double = 120) {
    sendSignal(signal, to: pid, when: { FileManager.default.fileExists(atPath: path) }, timeout: timeout)
}
