import Foundation
import OpenSpeech

/// Installs the models a transcription needs before any audio is read, each named with its size as it downloads
/// (`installing whisper-base (145 MB)`). Under `--no-download` a missing transcription model is an error saying what
/// to install; a missing speech detector model is not (its energy fallback runs, with a warning).
enum ModelInstallation {
    static func install(_ transcriber: FileTranscriber, noDownload: Bool, progress: ProgressLine) async throws {
        let missing = try transcriber.missingModelIDs()
        guard !missing.isEmpty else { return }
        if noDownload {
            let needed = try transcriber.requiredModelIDs()[0]
            guard !missing.contains(needed) else {
                if transcriber.options.detectsLanguage && transcriber.options.modelID == nil {
                    throw CommandFailure("language detection (no --language, or --language auto) needs the multilingual "
                        + "model \(needed), which is not installed, and --no-download was given; install it with "
                        + "`openspeech models install \(needed)`, or give the language with --language.")
                }
                throw CommandFailure("\(needed) is not installed and --no-download was given; install it with `openspeech models install \(needed)`.")
            }
            return
        }
        for id in missing {
            let size = transcriber.store.catalog.model(id).map { " (\(formatBytes($0.size)))" } ?? ""
            defer { progress.clear() }  // an error's line starts on a line of its own
            try await transcriber.store.install(id) { done, total in
                progress.show("installing \(id)\(size)", total > 0 ? Double(done) / Double(total) : 0)
            }
        }
    }
}
