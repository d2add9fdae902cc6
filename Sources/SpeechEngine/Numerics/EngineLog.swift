#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Logging
import Synchronization

/// The engine's diagnostics through swift-log (label `openspeech.engine`), at debug level: which matrix library and
/// instruction sets run here, and the kernel oneDNN chose for each new product shape. Nothing reaches stderr unless
/// an application lowers `level` to `.debug` (the command line does with `--verbose` or `OPENSPEECH_LOG_LEVEL`).
public enum EngineLog {
    private static let state = Mutex<Logger>({
        var logger = Logger(label: "openspeech.engine")
        logger.logLevel = .info
        return logger
    }())

    /// The lowest level the engine's logger emits (default `.info`: the engine's debug diagnostics stay silent).
    public static var level: Logger.Level {
        get { state.withLock { $0.logLevel } }
        set { state.withLock { $0.logLevel = newValue } }
    }

    /// `message` at debug level (`--verbose`): why a decoding was redone, which kernel ran.
    public static func debug(_ message: @autoclosure () -> String) {
        let logger = state.withLock { $0 }
        guard logger.logLevel <= .debug else { return }
        logger.debug("\(message())")
    }

    private static let said = Mutex<Set<String>>([])

    /// `message` at debug level the first time it is said in this process (oneDNN's kernel per product shape: one
    /// line, not one per thread slot).
    static func debugOnce(_ message: @autoclosure () -> String) {
        guard state.withLock({ $0.logLevel }) <= .debug else { return }
        let text = message()
        if said.withLock({ $0.insert(text).inserted }) { debug(text) }
    }

    /// Once per process, the first time the engine runs a product: what runs the engine's arithmetic here.
    static let describeBackend: Void = {
        debug("matrix backend: \(MatrixBackend.description)")
        debug("element-wise kernels: \(VectorKernels.level.name) (CPU has \(VectorKernels.cpuLevel.name)"
            + "\(isaLimit.map { "; limited by \($0)" } ?? ""))")
    }()

    private static var isaLimit: String? {
        for name in ["OPENSPEECH_MAX_CPU_ISA", "ONEDNN_MAX_CPU_ISA"] {
            if let value = getenv(name).map({ String(cString: $0) }), !value.isEmpty { return "\(name)=\(value)" }
        }
        return nil
    }
}
