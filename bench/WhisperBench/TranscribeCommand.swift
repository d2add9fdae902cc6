import ArgumentParser
import Foundation
import SpeechEngine

/// Transcribes every clip of a corpus with OpenSpeech's engine and writes a `BenchRun` JSON file.
struct TranscribeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "transcribe", abstract: "Run OpenSpeech over a corpus.")

    @Option(help: "Corpus folder (manifest.tsv, wav16k/).") var corpus: String
    @Option(help: "CTranslate2 Whisper model directory.") var model: String
    @Option(help: "Beam size (1: greedy).") var beamSize = 5
    @Option(help: "Threads (default: the cores available).") var threads: Int?
    @Option(help: "Compute type: auto, int8, int8_float32, bfloat16, float16, float32.") var computeType = "float32"
    @Option(help: "Only these languages (comma-separated).") var languages: String?
    @Option(help: "Only these subsets (comma-separated).") var subsets: String?
    @Option(help: "Only these clip ids (comma-separated).") var ids: String?
    @Option(help: "JSON file to write.") var output: String
    @Flag(help: "No progress lines.") var quiet = false

    func run() throws {
        let manifest = try CorpusManifest(directory: URL(fileURLWithPath: corpus))
        var items = manifest.items
        if !list(languages).isEmpty { items = items.filter { list(languages).contains($0.language) } }
        if !list(subsets).isEmpty { items = items.filter { list(subsets).contains($0.subset) } }
        if !list(ids).isEmpty { items = items.filter { list(ids).contains($0.id) } }

        let loadStart = ContinuousClock.now
        guard let requested = ComputeType(rawValue: computeType) else {
            throw ValidationError("unknown compute type \(computeType)")
        }
        let whisper = try WhisperModel(directory: URL(fileURLWithPath: model), threads: threads, computeType: requested)
        let loadSeconds = (ContinuousClock.now - loadStart).seconds
        let multilingual = whisper.tokenizer.isMultilingual
        let defaults = TranscriptionOptions()
        // One session for every clip, as an application transcribing many files keeps one: its buffers are
        // allocated once (faster-whisper likewise keeps its model and allocator across calls).
        let session = WhisperSession(model: whisper)

        var clips: [BenchRun.Clip] = []
        var wall = 0.0, audio = 0.0
        for (index, item) in items.enumerated() where multilingual || item.language == "en" {
            let samples = try WAVReader.samples(manifest.wav(item))
            let options = TranscriptionOptions(language: multilingual ? item.language : nil, beamSize: beamSize)
            let start = ContinuousClock.now
            var segments: [Segment] = []
            var failure: String?
            do {
                segments = try session.transcribe(samples: samples, options: options)
            } catch {
                failure = "\(error)"
            }
            let seconds = (ContinuousClock.now - start).seconds
            wall += seconds
            audio += Double(samples.count) / 16000
            let clip = BenchRun.Clip(
                id: item.id, subset: item.subset, language: item.language, duration: Double(samples.count) / 16000,
                reference: item.transcript, text: segments.map(\.text).joined(), seconds: seconds, error: failure,
                segments: segments.map { .init(start: $0.start, end: $0.end, text: $0.text, tokens: $0.tokens) })
            clips.append(clip)
            if !quiet {
                let line = "[\(index + 1)/\(items.count)] \(item.id) \(String(format: "%.1f", clip.duration))s in "
                    + "\(String(format: "%.2f", seconds))s: \(failure ?? String(clip.text.prefix(70)))\n"
                FileHandle.standardError.write(Data(line.utf8))
            }
        }

        let run = BenchRun(
            engine: "openspeech", model: URL(fileURLWithPath: model).standardizedFileURL.lastPathComponent,
            multilingual: multilingual,
            options: .init(computeType: whisper.computeType.rawValue, beamSize: beamSize, temperatures: defaults.temperatures,
                           wordTimestamps: false, threads: whisper.threads),
            loadSeconds: loadSeconds, wallSeconds: wall, audioSeconds: audio, peakRssBytes: peakResidentBytes(),
            blasCore: MatrixBackend.description,
            isaLimit: ProcessInfo.processInfo.environment["ONEDNN_MAX_CPU_ISA"] ?? "none", clips: clips)
        // OPENSPEECH_STAGE_TIMES=1: where the transcription time went, stage by stage (BENCHMARKS.md profiles).
        let stages = StageTimes.seconds
        if !stages.isEmpty {
            func line(_ name: String, _ seconds: Double) -> String {
                "  " + name.padding(toLength: 38, withPad: " ", startingAt: 0)
                    + String(format: " %7.2f s  %5.1f %%", seconds, 100 * seconds / wall)
            }
            var lines = stages.map { line($0.stage.name, $0.seconds) }
            lines.append(line("rest (mel, prompts, timestamps)", wall - stages.map(\.seconds).reduce(0, +)))
            FileHandle.standardError.write(Data(("stage times over \(String(format: "%.2f", wall)) s:\n" + lines.joined(separator: "\n") + "\n").utf8))
        }
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try encoder.encode(run).write(to: URL(fileURLWithPath: output), options: .atomic)
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
