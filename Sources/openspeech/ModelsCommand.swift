import ArgumentParser
import Foundation
import SpeechAssets

/// `openspeech models`: list, install, remove and register speech models; show and change locale reservations.
/// A thin client of `ModelStore` and `AssetLibrary` (the library behind `AssetInventory`).
struct ModelsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "models", abstract: "Manage speech models.",
        discussion: "Models live in $OPENSPEECH_HOME/models (default $XDG_DATA_HOME/openspeech, else ~/.local/share/openspeech).",
        subcommands: [ModelsListCommand.self, ModelsInstallCommand.self, ModelsRemoveCommand.self,
                      ModelsStatusCommand.self, ModelsAddCommand.self, ModelsReserveCommand.self,
                      ModelsReleaseCommand.self],
        defaultSubcommand: ModelsListCommand.self)
}

/// Runs a subcommand body; any error becomes one line on stderr and a non-zero exit.
func runReportingErrors(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let error as ExitCode {
        throw error
    } catch is CancellationError {
        FileHandle.standardError.write(Data("openspeech: cancelled\n".utf8))
        throw ExitCode(130)
    } catch {
        let message = String(describing: error).replacingOccurrences(of: "\n", with: " ")
        FileHandle.standardError.write(Data("openspeech: \(message)\n".utf8))
        throw ExitCode.failure
    }
}

func formatBytes(_ bytes: Int64) -> String {
    ByteCountFormatter.string(fromByteCount: bytes, countStyle: .file)
}
