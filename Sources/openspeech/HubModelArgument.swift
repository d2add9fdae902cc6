import Foundation
import SpeechAssets

/// `--model hf:OWNER/NAME[@REVISION]`: a Hugging Face Hub repository named where a catalog id is expected. It is
/// installed first (as `openspeech models install` would, with its progress on the status line) unless it already
/// is or `--no-download` was given, and the catalog id it is installed under is what the transcription runs.
enum HubModelArgument {
    /// `model` itself unless it is a Hub reference; else the catalog id of its install.
    static func catalogID(for model: String?, noDownload: Bool, progress: ProgressLine) async throws -> String? {
        guard let model, HuggingFaceReference.isReference(model) else { return model }
        let store = ModelStore()
        if let entry = store.catalog.model(model), store.installedDirectory(for: entry.id) != nil { return entry.id }
        guard !noDownload else {
            throw CommandFailure("\(model) is not installed and --no-download was given; install it with "
                + "`openspeech models install \(model)`.")
        }
        defer { progress.clear() }
        let installed = try await store.installFromHub(try HuggingFaceReference(parsing: model)) { done, total in
            progress.show("installing \(model)", total > 0 ? Double(done) / Double(total) : 0)
        }
        return installed.id
    }
}
