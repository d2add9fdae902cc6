import ArgumentParser

/// `whisper-bench`: the OpenSpeech half of `bench/run` (transcribe a corpus to JSON), the report over
/// both engines' JSON files, and the machine description. `bench/run` drives it; see its header.
@main
struct WhisperBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "whisper-bench",
        abstract: "OpenSpeech against faster-whisper: transcription runs, word error rate, speed and memory.",
        subcommands: [TranscribeCommand.self, ReportCommand.self, MachineCommand.self, LocateCommand.self, MoonshineCommand.self,
                      MoonshineHeadsCommand.self,
                      BiasCommand.self])
}

/// Comma-separated option values.
func list(_ text: String?) -> [String] {
    (text ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
}
