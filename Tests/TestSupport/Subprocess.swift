import Foundation

/// Runs a command-line tool (ffmpeg, ffprobe, python3...) for tests, capturing its output.
public struct CommandResult: Sendable {
    public let status: Int32
    public let stdout: Data
    public let stderr: String
    public var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
}

public enum CommandError: Error, CustomStringConvertible {
    case failed(command: String, status: Int32, stderr: String)
    public var description: String {
        switch self {
        case let .failed(command, status, stderr): "\(command) exited with \(status): \(stderr.suffix(2000))"
        }
    }
}

/// Runs `executable` (looked up on PATH) with `arguments`; throws unless it exits 0 when `check` is true.
@discardableResult
public func runCommand(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                       check: Bool = true) throws -> CommandResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [executable] + arguments
    if let environment {
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    }
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = FileHandle.nullDevice
    try process.run()
    // Read both pipes concurrently so a chatty child never blocks on a full pipe.
    nonisolated(unsafe) var errData = Data()
    let group = DispatchGroup()
    group.enter()
    DispatchQueue.global().async { errData = err.fileHandleForReading.readDataToEndOfFile(); group.leave() }
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    group.wait()
    process.waitUntilExit()
    let result = CommandResult(status: process.terminationStatus, stdout: outData,
                               stderr: String(decoding: errData, as: UTF8.self))
    if check && result.status != 0 {
        throw CommandError.failed(command: ([executable] + arguments).joined(separator: " "),
                                  status: result.status, stderr: result.stderr)
    }
    return result
}

/// `runCommand` for async code: the child is waited for on a thread of its own, never on one of Swift's cooperative
/// threads (two on a two-core machine). Suites run in parallel; one that blocked a cooperative thread for a child's
/// whole run would stall every other suite's tasks and timers, and their deadlines would measure that, not the code.
@discardableResult
public func runCommand(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                       check: Bool = true) async throws -> CommandResult {
    try await withCheckedThrowingContinuation { continuation in
        Thread {
            continuation.resume(with: Result {
                try runCommand(executable, arguments, environment: environment, check: check) as CommandResult
            })
        }.start()
    }
}

/// A fresh temporary directory, removed by the caller with `FileManager.removeItem` when done.
public func makeTemporaryDirectory(_ label: String = "openspeech-test") throws -> URL {
    let url = FileManager.default.temporaryDirectory
        .appendingPathComponent("\(label)-\(UUID().uuidString.prefix(8))", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}
