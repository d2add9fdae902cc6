import ArgumentParser
import Foundation
import SpeechAssets

/// `openspeech models status [--locale L]`: the asset status of a locale (as `AssetInventory.status(forModules:)`
/// reports it for a transcriber of that locale) and the reserved locales.
struct ModelsStatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Show a locale's model status and the reserved locales.")

    @Option(help: "A locale such as en-US (default: the current locale).") var locale: String?

    private struct LocaleModule: AssetDependentModule {
        let assetLocales: [Locale]
    }

    func run() async throws {
        try await runReportingErrors {
            let library = AssetLibrary()
            let asked = locale.map { Locale(identifier: $0) } ?? Locale.current
            let status = await library.status(forModules: [LocaleModule(assetLocales: [asked])])
            let model = library.resolver.modelID(for: asked).map { " (\($0))" } ?? ""
            print("\(asked.identifier(.bcp47)): \(status)\(model)")
            let reserved = library.reservedLocales.map { $0.identifier(.bcp47) }
            print("reserved locales (\(reserved.count) of \(library.maximumReservedLocales)): "
                  + (reserved.isEmpty ? "none" : reserved.joined(separator: ", ")))
            print("home: \(library.store.home.path)")
        }
    }
}
