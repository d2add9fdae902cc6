import ArgumentParser
import Foundation
import SpeechAssets

/// `openspeech models reserve LOCALE`: `AssetInventory.reserve(locale:)` from the shell.
struct ModelsReserveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "reserve", abstract: "Reserve a locale.")
    @Argument(help: "A locale such as en-US.") var locale: String

    func run() async throws {
        try await runReportingErrors {
            let added = try AssetLibrary().reserve(locale: Locale(identifier: locale))
            print(added ? "reserved \(locale)" : "\(locale) was already reserved")
        }
    }
}

/// `openspeech models release LOCALE`: `AssetInventory.release(reservedLocale:)` from the shell.
struct ModelsReleaseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "release", abstract: "Release a reserved locale.")
    @Argument(help: "A reserved locale.") var locale: String

    func run() async throws {
        try await runReportingErrors {
            guard AssetLibrary().release(reservedLocale: Locale(identifier: locale)) else {
                throw CommandFailure("\(locale) is not reserved")
            }
            print("released \(locale)")
        }
    }
}
