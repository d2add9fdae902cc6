import ArgumentParser
import Foundation
import SpeechAssets

/// `openspeech models remove ID...`: deletes installed models.
struct ModelsRemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove installed models.")

    @Argument(help: "Model ids.") var ids: [String]

    func run() async throws {
        try await runReportingErrors {
            let store = ModelStore()
            for id in ids {
                guard try await store.remove(id) else {
                    throw CommandFailure("model \(id) is not installed (see `openspeech models list`)")
                }
                print("removed \(id)")
            }
        }
    }
}
