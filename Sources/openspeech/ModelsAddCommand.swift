import ArgumentParser
import Foundation
import SpeechAssets

/// `openspeech models add DIR`: registers a CTranslate2 Whisper model directory as a user model and installs a
/// verified copy.
struct ModelsAddCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add", abstract: "Register a CTranslate2 Whisper model directory as a user model.")

    @Argument(help: "The model folder (model.bin, config.json, vocabulary.* or tokenizer.json), or a Hugging Face cache snapshot (models--ORG--NAME/snapshots/REV).")
    var directory: String
    @Option(help: "The model id (default: the folder's name; a snapshot's: NAME).") var id: String?
    @Option(help: "Comma-separated language codes (default: the model's own: English for an English-only vocabulary, else its language tokens).") var languages: String?

    func run() async throws {
        try await runReportingErrors {
            let list = languages?.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            let model = try await ModelStore().addUserModel(
                from: URL(fileURLWithPath: directory), id: id, languages: list)
            print("added \(model.id) (\(formatBytes(model.size)), \(model.languages.count == 1 ? "1 language" : "\(model.languages.count) languages"))")
        }
    }
}
