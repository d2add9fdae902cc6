import ArgumentParser
import Foundation
import SpeechAssets

/// `openspeech models list`: every catalog model with its languages, size (`~` before an estimate: the Hub's
/// repository gives the files at install time), the languages it is the default for (`LocaleModelResolver`) and
/// whether it is installed, or whether this machine can install it.
struct ModelsListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the catalog's models.")

    func run() async throws {
        try await runReportingErrors {
            let store = ModelStore()
            let room = MachineRoom(home: store.home)
            let defaults = Self.defaults(in: store.catalog)
            var rows = [["ID", "LANGUAGES", "SIZE", "DEFAULT FOR", "STATUS"]]
            for model in store.catalog.models {
                let languages = model.languages.isEmpty ? "-" : Self.named(model.languages)
                let status = store.installedDirectory(for: model.id) != nil ? "installed"
                    : await store.isInstalling(model.id) ? "downloading" : room.problem(installing: model) ?? "not installed"
                rows.append([model.id, languages, (model.isSizeApproximate ? "~" : "") + formatBytes(model.size),
                             defaults[model.id] ?? "-", status])
            }
            let widths = (0..<5).map { column in rows.map { $0[column].count }.max() ?? 0 }
            for row in rows {
                let padded = row.enumerated().map { index, cell in
                    index == 4 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
                }
                print(padded.joined(separator: "  "))
            }
        }
    }

    /// For each model that is a language's default, what it is the default for: its languages (a count past four),
    /// and with "(prompt, alternatives)" those where it is the default only for a request with an initial prompt or
    /// alternatives.
    static func defaults(in catalog: ModelCatalog) -> [String: String] {
        let resolver = LocaleModelResolver(catalog: catalog)
        var plain: [String: [String]] = [:], prompted: [String: [String]] = [:]
        for language in Set(catalog.models.filter(\.isTranscriptionModel).flatMap(\.languages)).sorted() {
            let locale = Locale(identifier: language)
            let first = resolver.modelID(for: locale)
            if let first { plain[first, default: []].append(language) }
            if let serving = resolver.modelID(for: locale, serving: .all), serving != first {
                prompted[serving, default: []].append(language)
            }
        }
        var result: [String: String] = [:]
        for id in Set(plain.keys).union(prompted.keys) {
            result[id] = [plain[id].map(named), prompted[id].map { named($0) + " (prompt, alternatives)" }]
                .compactMap { $0 }.joined(separator: "; ")
        }
        return result
    }

    /// Languages as the table writes them: their codes, or their count past four.
    static func named(_ languages: [String]) -> String {
        languages.count > 4 ? "\(languages.count) languages" : languages.joined(separator: ",")
    }
}
