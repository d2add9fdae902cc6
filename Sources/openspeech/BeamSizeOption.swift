import ArgumentParser
import OpenSpeech

/// `--beam-size`, as `transcribe` and `serve` take it; its range and default are the library's
/// (`SpeechTranscriber.EngineConfiguration.beamSizes`; unset, the model family's default).
struct BeamSizeOption: ParsableArguments {
    private static let range = SpeechTranscriber.EngineConfiguration.beamSizes

    @Option(parsing: .unconditional, help: """
        Beam width from \(range.lowerBound) to \(range.upperBound) (1 = greedy, faster; default \
        \(SpeechTranscriber.EngineConfiguration.defaultBeamSize) for Whisper models, greedy for Moonshine).
        """)
    var beamSize: Int?

    func validate() throws {
        if let beamSize, !Self.range.contains(beamSize) {
            throw ValidationError("--beam-size must be from \(Self.range.lowerBound) to \(Self.range.upperBound), not \(beamSize).")
        }
    }
}
