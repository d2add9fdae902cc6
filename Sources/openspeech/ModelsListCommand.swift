import ArgumentParser
import Foundation
import SpeechAssets

/// `openspeech models list`: every catalog model with its languages, size (`~` before an estimate: the Hub's
/// repository gives the files at install time) and whether it is installed, or whether this machine can install it.
struct ModelsListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the catalog's models.")

    func run() async throws {
        try await runReportingErrors {
            let store = ModelStore()
            let room = MachineRoom(home: store.home)
            var rows = [["ID", "LANGUAGES", "SIZE", "STATUS"]]
            for model in store.catalog.models {
                let languages = model.languages.isEmpty ? "-"
                    : model.languages.count > 4 ? "\(model.languages.count) languages" : model.languages.joined(separator: ",")
                let status = store.installedDirectory(for: model.id) != nil ? "installed"
                    : await store.isInstalling(model.id) ? "downloading" : room.problem(installing: model) ?? "not installed"
                rows.append([model.id, languages, (model.isSizeApproximate ? "~" : "") + formatBytes(model.size), status])
            }
            let widths = (0..<4).map { column in rows.map { $0[column].count }.max() ?? 0 }
            for row in rows {
                let padded = row.enumerated().map { index, cell in
                    index == 3 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
                }
                print(padded.joined(separator: "  "))
            }
        }
    }
}
