import Foundation
import OpenSpeech

/// Installs the models a transcription needs before any audio is read, each named with its size as it downloads
/// (`installing whisper-base (145 MB)`). Under `--no-download` a missing transcription model is an error saying what
/// to install; a missing speech detector model is not (its energy fallback runs, with a warning).
enum ModelInstallation {
    static func install(_ transcriber: FileTranscriber, noDownload: Bool, progress: ProgressLine) async throws {
        defer { progress.clear() }  // an error's line starts on a line of its own
        let catalog = transcriber.store.catalog
        guard let missing = try await transcriber.prepareModels(installing: !noDownload, progress: { id, fraction in
            let size = catalog.model(id).map { " (\(formatBytes($0.size)))" } ?? ""
            progress.show("installing \(id)\(size)", fraction)
        }) else { return }
        if transcriber.options.detectsLanguage && transcriber.options.modelID == nil {
            throw CommandFailure("language detection (no --language, or --language auto) needs the multilingual "
                + "model \(missing), which is not installed, and --no-download was given; install it with "
                + "`openspeech models install \(missing)`, or give the language with --language.")
        }
        throw CommandFailure("\(missing) is not installed and --no-download was given; install it with `openspeech models install \(missing)`.")
    }
}
