import Foundation
import Logging
import SpeechEngine

/// The command line's logs through swift-log, on stderr: `--verbose` (debug), else `OPENSPEECH_LOG_LEVEL`
/// (trace, debug, info, notice, warning, error, critical), else warnings and errors only.
enum CommandLogging {
    /// Installs the handler once per process, and returns a logger for `label`.
    static func logger(_ label: String, verbose: Bool) -> Logger {
        let level = verbose ? .debug : ProcessInfo.processInfo.environment["OPENSPEECH_LOG_LEVEL"]
            .flatMap { Logger.Level(rawValue: $0.lowercased()) } ?? .warning
        _ = bootstrapOnce
        EngineLog.level = min(EngineLog.level, level)   // the engine's diagnostics (backend, ISA, kernels) too
        var logger = Logger(label: label)
        logger.logLevel = level
        return logger
    }

    private static let bootstrapOnce: Void = {
        LoggingSystem.bootstrap { StreamLogHandler.standardError(label: $0) }
    }()
}
