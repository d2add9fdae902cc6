// Silero VAD speed: times real time on one core, over corpus clips (or the files given), whole-clip batches and
// real-time-sized pieces. Usage: vad-bench [FILE...]; the model is installed into <repo>/.build/test-home as the
// tests do.
import Foundation
import SpeechAssets
import SpeechAudio
import SpeechEngine

let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardized
let store = ModelStore(home: repository.appendingPathComponent(".build/test-home"), catalog: ModelCatalog.builtIn)
let model = try SileroVAD(directory: try await store.install("silero-vad"))
BLASSettings.singleThreaded
var files = CommandLine.arguments.dropFirst().map { URL(fileURLWithPath: $0) }
if files.isEmpty {
    let corpus = ProcessInfo.processInfo.environment["OPENSPEECH_CORPUS"].map { URL(fileURLWithPath: $0) }
        .map { $0.appendingPathComponent("wav16k") } ?? repository.appendingPathComponent("../shared/corpus/wav16k").standardized
    files = try FileManager.default.contentsOfDirectory(at: corpus, includingPropertiesForKeys: nil)
        .filter { $0.pathExtension == "wav" }.sorted { $0.path < $1.path }
}
let audio = try files.flatMap { try MonoAudio.load(contentsOf: $0) }
let seconds = Double(audio.count) / 16_000
print("Silero VAD (\(model.weightsFile.lastPathComponent)), OpenBLAS \(BLASSettings.coreName), 1 thread, \(files.count) files, \(String(format: "%.1f", seconds)) s of audio")

func measure(_ label: String, repeats: Int = 5, _ body: () -> Int) {
    var best = Double.infinity
    var chunks = 0
    for _ in 0..<repeats {
        let start = DispatchTime.now().uptimeNanoseconds
        chunks = body()
        best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }
    let padded = label.padding(toLength: 32, withPad: " ", startingAt: 0)
    print(padded + String(format: " %8.1f ms  %7.0fx real time  %5.1f µs/chunk", best * 1000, seconds / best,
                          best * 1e6 / Double(chunks)))
}

for batch in [1, 8, 32, 64] {
    let stream = model.makeStream(batchChunks: batch)
    measure("whole audio, batches of \(batch)") { stream.probabilities(of: audio).count }
}
// A live source: 20 ms pieces (320 samples) fed one by one, as a microphone delivers them.
let live = model.makeStream(batchChunks: 32)
measure("live, 20 ms pieces") {
    live.reset()
    var probabilities: [Float] = []
    probabilities.reserveCapacity(audio.count / 512 + 1)
    audio.withUnsafeBufferPointer { all in
        var offset = 0
        while offset < all.count {
            let end = min(all.count, offset + 320)
            live.process(UnsafeBufferPointer(rebasing: all[offset..<end]), appendingTo: &probabilities)
            offset = end
        }
    }
    return probabilities.count
}
let energy = EnergyVADStream()
measure("energy fallback") { energy.probabilities(of: audio).count }
