import Foundation
import SpeechEngine

/// The package's version and what the engine runs on here. Not in Apple's API.
public enum BuildInfo {
    /// The package's version (semantic versioning).
    public static let version = "0.1.0"

    /// The compute type the command line's live audio (`listen`, `transcribe --live`) runs in unless told: auto (int8
    /// where oneDNN runs it), whose decodings take about half float32's time. Its finals are as accurate as float32's
    /// since they are decided at the detector's pauses (`PauseCommit`; 9.23 against 9.29 % WER over the English
    /// corpus, file mode 8.85 %: BENCHMARKS.md).
    public static let liveComputeType = ComputeType.auto

    /// One line for `--version` and bug reports: the version, the matrix library and instruction set in use, and
    /// the compute types the defaults resolve to on this machine: files with the speech detector (`transcribe`,
    /// `serve`, `FileTranscriber`), and without it (`--no-vad`), live audio (the command line's `auto`) and
    /// `SpeechTranscriber`.
    public static var description: String {
        let files = FileTranscriber.Options(locale: Locale(identifier: "en-US"))
        var everySample = files
        everySample.detectsSpeech = false
        return "OpenSpeech \(version) — engine: \(MatrixBackend.description); default compute type: "
            + "\(files.effectiveComputeType.resolved) for files (\(files.effectiveComputeType); transcribe, serve), "
            + "\(everySample.effectiveComputeType.resolved) with --no-vad, \(liveComputeType.resolved) for live audio "
            + "(listen, transcribe --live: \(liveComputeType)), \(ComputeType.default.resolved) for SpeechTranscriber"
    }
}
