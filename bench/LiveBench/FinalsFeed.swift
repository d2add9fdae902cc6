// `live-bench finals [SUBSETS]`: the finals' accuracy of volatile transcription against file mode, over many clips.
// Volatile finals are a function of the audio alone (`VolatileDecodeSchedule`): a clip fed in 100 ms buffers as fast
// as the analyzer takes them gets the finals it gets in real time, so their WER can be measured over the whole
// English corpus in minutes instead of one real-time run's dozen clips (where one word is half a point). Each clip
// (SUBSETS, comma-separated, default every English subset but the long-form item) goes through its own analyzer with
// a volatile SpeechTranscriber (word times) and the SpeechDetector, as `openspeech listen` runs them, and through
// `FileTranscriber` with the same model; prints WER per subset for both, and the clips whose finals differ.
import Foundation
import OpenSpeech
import SpeechEngine
import SpeechEvaluation
import TestSupport

func runFinalsFeed(subsets: Set<String>, locale: Locale) async throws {
    let environment = ProcessInfo.processInfo.environment
    let only = environment["LIVE_BENCH_CLIPS"].map { Set($0.split(separator: ",").map(String.init)) }
    let clips = Corpus.items.filter { $0.language == "en" && (only?.contains($0.id) ?? subsets.contains($0.subset)) }
    var fileOptions = FileTranscriber.Options(locale: locale, modelID: environment["LIVE_BENCH_MODEL"], wordTimestamps: true)
    if let beam = environment["LIVE_BENCH_FILE_BEAM"].flatMap(Int.init) { fileOptions.beamSize = beam }
    if let type = environment["LIVE_BENCH_FILE_COMPUTE"].flatMap(ComputeType.init(rawValue:)) { fileOptions.computeType = type }
    let files = FileTranscriber(options: fileOptions)
    var live: [String: ErrorCounts] = [:], file: [String: ErrorCounts] = [:]
    var differing = 0
    for clip in clips {
        let fileText = try await files.transcribe(contentsOf: clip.wav16kURL).text
        let transcriber = SpeechTranscriber(locale: locale, transcriptionOptions: [], reportingOptions: [.volatileResults],
                                            attributeOptions: [.audioTimeRange],
                                            engineConfiguration: .init(modelID: environment["LIVE_BENCH_MODEL"],
                                                                       beamSize: environment["LIVE_BENCH_BEAM"].flatMap(Int.init),
                                                                       computeType: environment["LIVE_BENCH_COMPUTE"].flatMap(ComputeType.init(rawValue:)) ?? .default))
        let detector = SpeechDetector(detectionOptions: .init(sensitivityLevel: .medium), reportResults: false)
        let analyzer = SpeechAnalyzer(modules: environment["LIVE_BENCH_NO_DETECTOR"] != nil ? [transcriber] : [transcriber, detector])
        let collector = Task {
            try await transcriber.results.reduce(into: "") { text, result in
                if result.isFinal { text += String(result.text.characters) }
                if only != nil {
                    report(String(format: "  %@ %.2f-%.2f %@", result.isFinal ? "final   " : "volatile", result.range.start.seconds,
                                  result.range.end.seconds, String(result.text.characters)))
                }
            }
        }
        let (stream, builder) = AsyncStream.makeStream(of: AnalyzerInput.self)
        try await analyzer.start(inputSequence: stream)
        let samples = try MonoAudio.load(contentsOf: clip.wav16kURL)
        for start in stride(from: 0, to: samples.count, by: 1_600) {
            builder.yield(AnalyzerInput(buffer: MonoAudio.buffer(Array(samples[start..<min(start + 1_600, samples.count)]))))
        }
        builder.finish()
        try await analyzer.finalizeAndFinishThroughEndOfInput()
        let liveText = try await collector.value
        let liveScore = WordErrorRate.score(reference: clip.transcript, hypothesis: liveText, language: "en")
        let fileScore = WordErrorRate.score(reference: clip.transcript, hypothesis: fileText, language: "en")
        live[clip.subset, default: ErrorCounts()] += liveScore
        file[clip.subset, default: ErrorCounts()] += fileScore
        if liveScore.rate != fileScore.rate {
            differing += 1
            report("\(clip.id): live \(liveScore.errors) errors, file \(fileScore.errors)\n  live: \(liveText)\n  file: \(fileText)")
        }
    }
    report("live-bench finals: \(environment["LIVE_BENCH_MODEL"] ?? "the default model"), volatile finals fed at once (detector on) against file mode")
    var allLive = ErrorCounts(), allFile = ErrorCounts()
    for subset in live.keys.sorted() {
        let l = live[subset]!, f = file[subset]!
        allLive += l
        allFile += f
        report(String(format: "%-9@ %4d words: live finals %.2f %% (S %d D %d I %d), file mode %.2f %% (S %d D %d I %d)",
                      subset as NSString, l.referenceLength, l.rate * 100, l.substitutions, l.deletions, l.insertions,
                      f.rate * 100, f.substitutions, f.deletions, f.insertions))
    }
    report(String(format: "all       %4d words: live finals %.2f %%, file mode %.2f %% (%d of %d clips differ)",
                  allLive.referenceLength, allLive.rate * 100, allFile.rate * 100, differing, clips.count))
}
