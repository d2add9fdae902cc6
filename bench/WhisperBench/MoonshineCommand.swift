import ArgumentParser
import Foundation
import SpeechEngine

/// Moonshine through the engine on 16 kHz WAV files, one JSON object a line as `bench/moonshine_reference.py` prints
/// ONNX Runtime's (file, tokens, text, seconds): greedy by default, the two runs compare token for token.
struct MoonshineCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "moonshine",
                                                    abstract: "Moonshine transcription of 16 kHz WAV files.")

    @Option(help: "Moonshine model directory (encoder_model.ort, decoder_model_merged.ort, tokenizer.bin).") var model: String
    @Option(help: "Threads (default: the cores available).") var threads: Int?
    @Option(help: "Beam size (1: greedy).") var beamSize = 1
    @Argument(help: "16 kHz mono WAV files.") var files: [String]

    func run() throws {
        let started = ContinuousClock.now
        let moonshine = try MoonshineModel(directory: URL(fileURLWithPath: model), threads: threads)
        FileHandle.standardError.write(Data("moonshine: loaded in \((ContinuousClock.now - started).seconds) s\n".utf8))
        for file in files {
            let samples = try WAVReader.samples(URL(fileURLWithPath: file))
            let began = ContinuousClock.now
            let tokens = try moonshine.tokens(samples: samples, beamSize: beamSize)
            let seconds = (ContinuousClock.now - began).seconds
            let line: [String: Any] = ["file": file, "tokens": tokens, "text": moonshine.tokenizer.decode(tokens),
                                       "seconds": (seconds * 1e4).rounded() / 1e4]
            let data = try JSONSerialization.data(withJSONObject: line, options: [.sortedKeys, .withoutEscapingSlashes])
            print(String(decoding: data, as: UTF8.self))
        }
    }
}
