import Foundation

public struct ProcessDidNotExit: Error, CustomStringConvertible {
    public let limit: Duration
    public let output: String
    public var description: String { "the process did not exit within \(limit) of its input's end: \(output.suffix(2000))" }
}

/// Runs `executable` with `arguments`, writing `bytes` to its standard input `piece` bytes at a time, one piece every
/// `interval` (audio arriving as from a recorder or a pipe), then closing it; returns the exit status and stdout and
/// stderr together, in order. The output is read on a dispatch thread, not on Swift's cooperative pool: several
/// such runs at once on a 2-core machine would otherwise block every cooperative thread in a pipe read.
public func runFeedingStandardInput(_ executable: URL, _ arguments: [String], environment: [String: String] = [:],
                                    bytes: Data, piece: Int, every interval: Duration,
                                    exitWithin limit: Duration = .seconds(60)) async throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    let input = Pipe(), output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    process.standardError = output
    try process.run()
    async let read: Data = withCheckedContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(returning: output.fileHandleForReading.readDataToEndOfFile()) }
    }
    var offset = 0
    while offset < bytes.count {
        let end = min(offset + piece, bytes.count)
        try input.fileHandleForWriting.write(contentsOf: bytes[offset..<end])
        offset = end
        try await Task.sleep(for: interval)
    }
    try input.fileHandleForWriting.close()
    let deadline = ContinuousClock.now + limit
    while process.isRunning, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
    if process.isRunning {
        process.terminate()
        throw ProcessDidNotExit(limit: limit, output: String(decoding: await read, as: UTF8.self))
    }
    return (process.terminationStatus, String(decoding: await read, as: UTF8.self))
}
