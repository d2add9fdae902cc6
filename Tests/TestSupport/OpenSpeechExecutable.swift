import Foundation

/// The built `openspeech` tool, beside the test bundle in the build products folder.
public enum OpenSpeechExecutable {
    public static let url: URL? = {
        var candidates: [URL] = []
        if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            candidates.append(URL(fileURLWithPath: exe).deletingLastPathComponent())
        }
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent())
        candidates.append(Bundle.main.bundleURL)
        for directory in candidates {
            // The test bundle may be a folder (`*.xctest/`) one level below the products folder.
            for dir in [directory, directory.deletingLastPathComponent()] {
                let tool = dir.appendingPathComponent("openspeech")
                if FileManager.default.isExecutableFile(atPath: tool.path) { return tool }
            }
        }
        return nil
    }()

    /// Starts the tool with `arguments` and extra environment; stdout and stderr are captured to files.
    public static func start(_ arguments: [String], environment: [String: String], output: URL) throws -> Process {
        guard let url else { throw LocateError() }
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

    /// Runs the tool to completion; returns its exit status and combined output.
    public static func run(_ arguments: [String], environment: [String: String]) async throws -> (status: Int32, output: String) {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("openspeech-out-\(UUID()).txt")
        defer { try? FileManager.default.removeItem(at: log) }
        let process = try start(arguments, environment: environment, output: log)
        while process.isRunning { try await Task.sleep(nanoseconds: 20_000_000) }
        return (process.terminationStatus, (try? String(contentsOf: log, encoding: .utf8)) ?? "")
    }

    struct LocateError: Error, CustomStringConvertible {
        var description: String { "the openspeech executable was not found beside the test bundle; build it (swift build) first" }
    }
}
