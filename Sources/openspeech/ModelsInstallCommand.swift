import ArgumentParser
import Foundation
import SpeechAssets

/// `openspeech models install ID...`: downloads, verifies and installs models, with a progress bar on stderr. An id may
/// be a Hugging Face Hub repository of a CTranslate2 Whisper model (`hf:OWNER/NAME[@REVISION]`), installed under the
/// repository's name and recorded with the commit installed (`HF_ENDPOINT`, `HF_TOKEN`, `HF_HUB_OFFLINE` honoured).
struct ModelsInstallCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "install", abstract: "Install models.")

    @Argument(help: "Model ids (see `openspeech models list`), or hf:OWNER/NAME[@REVISION]: a CTranslate2 Whisper model of the Hugging Face Hub.") var ids: [String]
    @Flag(name: .shortAndLong, help: "No progress bar.") var quiet = false

    func run() async throws {
        try await runReportingErrors {
            let store = ModelStore()
            // A model missing from the catalog may be in a catalog file skipped as not valid: say why instead.
            if ids.contains(where: { store.catalog.model($0) == nil }) { try store.validateCatalogs() }
            for id in ids {
                if store.installedDirectory(for: id) != nil {
                    if !quiet { FileHandle.standardError.write(Data("\(id) is already installed\n".utf8)) }
                    continue
                }
                let bar = quiet ? nil : ModelsProgressBar(label: id)
                let directory = try await {
                    defer { bar?.finish() }  // ends the bar's line, also before an error's
                    return try await store.install(id) { completed, total in bar?.update(completed, total) }
                }()
                if HuggingFaceReference.isReference(id), !quiet {
                    FileHandle.standardError.write(Data("\(id) is installed as model \(directory.lastPathComponent)\n".utf8))
                }
                print(directory.path)
            }
        }
    }
}
