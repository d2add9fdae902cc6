// The public API's cost over the engine, and its live latency. Usage: api-bench [CORPUS_DIR]
//  1. Offline: RTFx of `SpeechTranscriber` (.transcription, beam 5) through `SpeechAnalyzer` against
//     `WhisperSession.transcribe` called directly, same model, options and audio (ls-clean + other).
//  2. Live: clips fed in 100 ms buffers at real-time pace to a progressive transcriber; latency from supplying
//     audio to the first volatile result, and from supplying a final result's last audio to its arrival.
// Prints a table and writes bench/results/api.json. Models install into $OPENSPEECH_HOME if missing.
import Foundation
import OpenSpeech
import SpeechEngine

struct Clip { let id: String; let subset: String; let url: URL; let seconds: Double }

let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
let corpus = CommandLine.arguments.dropFirst().first.map { URL(fileURLWithPath: $0) }
    ?? repository.deletingLastPathComponent().appendingPathComponent("shared/corpus")
let manifest = try String(contentsOf: corpus.appendingPathComponent("manifest.tsv"), encoding: .utf8)
let clips: [Clip] = manifest.split(separator: "\n").dropFirst().compactMap { line in
    let columns = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
    guard columns.count >= 8, columns[3] == "en", ["ls-clean", "other"].contains(columns[1]) else { return nil }
    return Clip(id: columns[0], subset: columns[1], url: corpus.appendingPathComponent("wav16k/\(columns[0]).wav"),
                seconds: Double(columns[2]) ?? 0)
}

func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }
func percentile(_ values: [Double], _ p: Double) -> Double {
    guard !values.isEmpty else { return .nan }
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
}

let locale = Locale(identifier: "en-US")
let store = ModelStore()
let modelID = LocaleModelResolver(catalog: store.catalog).modelID(for: locale)!
let directory = try await store.install(modelID)
let audio = try clips.map { try MonoAudio.load(contentsOf: $0.url) }
let totalSeconds = clips.map(\.seconds).reduce(0, +)
print("model \(modelID), \(clips.count) clips, \(String(format: "%.1f", totalSeconds)) s of audio")

// 1. Offline overhead.
let model = try WhisperModel(directory: directory)
let session = WhisperSession(model: model)
var engineTime = 0.0
for samples in audio {
    let start = now()
    _ = try session.transcribe(samples: samples, options: TranscriptionOptions())
    engineTime += now() - start
}
var apiTime = 0.0
for clip in clips {
    let start = now()
    let transcriber = SpeechTranscriber(locale: locale, preset: .transcription)
    let analyzer = SpeechAnalyzer(modules: [transcriber], options: .init(priority: .high, modelRetention: .processLifetime))
    let collector = Task {
        var count = 0
        for try await _ in transcriber.results { count += 1 }
        return count
    }
    _ = try await analyzer.analyzeSequence(from: AVAudioFile(forReading: clip.url))
    try await analyzer.finalizeAndFinishThroughEndOfInput()
    _ = try await collector.value
    apiTime += now() - start
}
let engineRTFx = totalSeconds / engineTime, apiRTFx = totalSeconds / apiTime
print(String(format: "offline RTFx: engine %.1f, public API %.1f, overhead %.1f%%", engineRTFx, apiRTFx,
             (apiTime / engineTime - 1) * 100))

// 2. Live latency at real-time pace.
actor Arrivals {
    var events: [(time: Double, final: Bool, end: Double)] = []
    func add(_ time: Double, _ final: Bool, _ end: Double) { events.append((time, final, end)) }
}
var firstVolatile: [Double] = []
var finalLatency: [Double] = []
for (clip, samples) in zip(clips, audio).prefix(6) {
    let transcriber = SpeechTranscriber(locale: locale, preset: .progressiveTranscription)
    let analyzer = SpeechAnalyzer(modules: [transcriber], options: .init(priority: .high, modelRetention: .processLifetime))
    let arrivals = Arrivals()
    let collector = Task {
        for try await result in transcriber.results { await arrivals.add(now(), result.isFinal, result.range.end.seconds) }
    }
    let (stream, builder) = AsyncStream.makeStream(of: AnalyzerInput.self)
    try await analyzer.start(inputSequence: stream)
    let begin = now()
    var supplied: [(audioEnd: Double, wall: Double)] = []
    for start in stride(from: 0, to: samples.count, by: 1_600) {
        let count = min(1_600, samples.count - start)
        let buffer = AVAudioPCMBuffer(pcmFormat: MonoAudio.format(), frameCapacity: AVAudioFrameCount(count))!
        samples.withUnsafeBufferPointer { buffer.floatChannelData![0].update(from: $0.baseAddress! + start, count: count) }
        buffer.frameLength = AVAudioFrameCount(count)
        // Real-time pace: this buffer's audio ends at (start + count) / 16 kHz after the beginning.
        let due = begin + Double(start + count) / 16_000
        if due > now() { try await Task.sleep(for: .seconds(due - now())) }
        builder.yield(AnalyzerInput(buffer: buffer))
        supplied.append((Double(start + count) / 16_000, now()))
    }
    builder.finish()
    try await analyzer.finalizeAndFinishThroughEndOfInput()
    try await collector.value
    let events = await arrivals.events
    if let first = events.first(where: { !$0.final }) { firstVolatile.append(first.time - begin) }
    for event in events where event.final {
        // When the audio through this result's end had been supplied.
        let suppliedAt = supplied.first { $0.audioEnd >= event.end - 0.001 }?.wall ?? supplied.last!.wall
        finalLatency.append(max(0, event.time - suppliedAt))
    }
    print("  \(clip.id): \(events.filter(\.final).count) finals, \(events.filter { !$0.final }.count) volatiles")
}
print(String(format: "live: first volatile median %.2f s (p90 %.2f); finals median %.2f s, p90 %.2f s",
             percentile(firstVolatile, 0.5), percentile(firstVolatile, 0.9),
             percentile(finalLatency, 0.5), percentile(finalLatency, 0.9)))

let results = repository.appendingPathComponent("bench/results")
try FileManager.default.createDirectory(at: results, withIntermediateDirectories: true)
let json: [String: Any] = [
    "model": modelID, "audio_seconds": totalSeconds, "engine_rtfx": engineRTFx, "api_rtfx": apiRTFx,
    "api_overhead_percent": (apiTime / engineTime - 1) * 100,
    "first_volatile_seconds": ["median": percentile(firstVolatile, 0.5), "p90": percentile(firstVolatile, 0.9)],
    "final_latency_seconds": ["median": percentile(finalLatency, 0.5), "p90": percentile(finalLatency, 0.9)],
]
try JSONSerialization.data(withJSONObject: json, options: [.prettyPrinted, .sortedKeys])
    .write(to: results.appendingPathComponent("api.json"))
