import SpeechEngine

/// The package's version and what the engine runs on here. Not in Apple's API.
public enum BuildInfo {
    /// The package's version (semantic versioning).
    public static let version = "0.1.0"

    /// One line for `--version` and bug reports: the version, the matrix library and instruction set in use, and
    /// the compute types `auto` and the default resolve to on this machine.
    public static var description: String {
        "OpenSpeech \(version) — engine: \(MatrixBackend.description); compute type: \(ComputeType.default.resolved) "
            + "(default), \(ComputeType.auto.resolved) (auto)"
    }
}
