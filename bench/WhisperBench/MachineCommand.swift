import ArgumentParser
import Foundation
import SpeechAssets

/// Prints the machine: cores, CPU model, the OpenBLAS kernels this process gets.
struct MachineCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "machine", abstract: "Describe the machine and OpenBLAS kernels.")

    func run() {
        print(MachineInfo.current().summary)
    }
}

/// Prints the directory of an installed catalog model, installing it first if needed.
struct LocateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "locate", abstract: "Install (if needed) and print a model's directory.")

    @Argument(help: "Catalog model id, e.g. whisper-tiny.en.") var model: String

    func run() async throws {
        print(try await ModelStore().install(model).path)
    }
}
