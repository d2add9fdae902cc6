import ArgumentParser
import SpeechAudio

struct AudioInfoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "audio-info", abstract: "Describe audio files.")
    @Argument var files: [String]
    func run() async throws {}
}
