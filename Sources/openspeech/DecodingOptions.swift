import ArgumentParser
import Foundation

/// `transcribe`'s decoding options, with whisper's CLI names (dashed): prompt, temperatures, threads.
struct DecodingOptions: ParsableArguments {
    @Option(help: "Text as if heard before the audio: spelling, style, names (whisper's --initial_prompt).")
    var prompt: String?

    @Option(parsing: .unconditional, help: "Sampling temperature of the first attempt at each window (0: the most likely text).")
    var temperature: Double = 0

    @Option(parsing: .unconditional, help: "Step up the temperature by this much, up to 1, while a window's text is too repetitive or improbable; 0 turns the fallback off.")
    var temperatureIncrementOnFallback: Double = 0.2

    @Option(parsing: .unconditional, help: "30 s windows the encoder runs at once: the one being decoded and full ones after it, used when the decoder reaches them (identical text at every size; default 1).")
    var batchSize = 1

    @Option(parsing: .unconditional, help: "Threads the engine uses (default: the cores available, or OPENBLAS_NUM_THREADS).")
    var threads: Int?

    /// The temperatures tried in order: the first, then up by the increment to 1.
    var temperatures: [Double] {
        guard temperatureIncrementOnFallback > 0 else { return [temperature] }
        var values: [Double] = []
        var value = temperature
        while value <= 1 + 1e-9 {
            values.append((value * 1000).rounded() / 1000)
            value += temperatureIncrementOnFallback
        }
        return values.isEmpty ? [temperature] : values
    }

    func validate() throws {
        guard (0...1).contains(temperature), (0...1).contains(temperatureIncrementOnFallback) else {
            throw ValidationError("--temperature and --temperature-increment-on-fallback must be from 0 to 1.")
        }
        if !(1...16).contains(batchSize) { throw ValidationError("--batch-size must be from 1 to 16, not \(batchSize).") }
        if let threads, !(1...1024).contains(threads) { throw ValidationError("--threads must be from 1 to 1024, not \(threads).") }
    }
}
