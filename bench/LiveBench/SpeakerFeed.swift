// `live-bench speakers OUT_DIR FILE.wav...`: live speaker labels (issue 45). Each file goes through one SpeechAnalyzer
// with a SpeakerDetector alone, fed in 0.1 s buffers at `LIVE_BENCH_PACE` times real time (default 20); every result
// is written to OUT_DIR/NAME.jsonl with the audio seconds fed when it arrived (`fed`), so
// bench/diarization/live_speakers.py can score the labels (DER) and the delay from each speaker change to its label.
import Foundation
import OpenSpeech
import SpeechAudio
import Synchronization

/// The audio seconds fed so far, read by the collector as each result arrives.
private final class FedAudio: Sendable {
    let seconds = Mutex(0.0)
}

func runSpeakerFeed(outputDirectory: URL, files: [URL]) async throws {
    let pace = ProcessInfo.processInfo.environment["LIVE_BENCH_PACE"].flatMap(Double.init) ?? 20
    try FileManager.default.createDirectory(at: outputDirectory, withIntermediateDirectories: true)
    for file in files {
        let samples = try MonoAudio.load(contentsOf: file)
        let detector = SpeakerDetector()
        let analyzer = SpeechAnalyzer(modules: [detector])
        let format = AVAudioFormat(commonFormat: .pcmFormatFloat32, sampleRate: 16_000, channels: 1, interleaved: false)!
        try await analyzer.prepareToAnalyze(in: format)
        let fed = FedAudio()
        let collector = Task {
            var lines: [String] = []
            for try await result in detector.results {
                let at = fed.seconds.withLock { $0 }
                lines.append(String(format: "{\"start\": %.4f, \"end\": %.4f, \"speaker\": %@, \"fed\": %.4f}",
                                    result.range.start.seconds, result.range.end.seconds,
                                    result.speaker.map { "\"\($0)\"" } ?? "null", at))
            }
            return lines
        }
        let (stream, continuation) = AsyncStream<AnalyzerInput>.makeStream()
        let started = ContinuousClock.now
        let feeding = Task {
            let step = 1_600
            for start in stride(from: 0, to: samples.count, by: step) {
                let count = min(step, samples.count - start)
                let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: AVAudioFrameCount(count))!
                buffer.frameLength = AVAudioFrameCount(count)
                for i in 0..<count { buffer.floatChannelData![0][i] = samples[start + i] }
                fed.seconds.withLock { $0 = Double(start + count) / 16_000 }
                continuation.yield(AnalyzerInput(buffer: buffer))
                let due = started + .seconds(Double(start + count) / 16_000 / pace)
                try? await Task.sleep(until: due, clock: .continuous)
            }
            continuation.finish()
        }
        _ = try await analyzer.analyzeSequence(stream)
        try await analyzer.finalizeAndFinishThroughEndOfInput()
        _ = await feeding.value
        let lines = try await collector.value
        let name = file.deletingPathExtension().lastPathComponent
        try (lines.joined(separator: "\n") + "\n").write(to: outputDirectory.appendingPathComponent(name + ".jsonl"),
                                                         atomically: true, encoding: .utf8)
        print("\(name): \(lines.count) results, \(String(format: "%.1f", (ContinuousClock.now - started) / .seconds(1))) s")
    }
}
