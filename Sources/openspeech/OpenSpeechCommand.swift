import ArgumentParser
import OpenSpeech

/// `openspeech`: speech to text on the command line. Each subcommand is a thin client of the library.
@main
struct OpenSpeechCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "openspeech",
        abstract: "Speech to text on open Whisper models, on the CPU.",
        version: BuildInfo.description,
        subcommands: [TranscribeCommand.self, ListenCommand.self, DiarizeCommand.self, ModelsCommand.self, AudioInfoCommand.self,
                      ServeCommand.self])
}
