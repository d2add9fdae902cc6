// Live microphone latency, as a user of `openspeech listen` meets it. Usage: live-bench [MAX_CLIPS] [fast] [all]
// (or `live-bench listen [MAX_CLIPS] [all] [-- ARGUMENTS]`: the `openspeech listen` command itself, ListenFeed.swift)
// (or `live-bench finals [SUBSETS]`: the finals' WER against file mode over many clips, FinalsFeed.swift;
// `live-bench speakers OUT_DIR FILES...`: live speaker labels, SpeakerFeed.swift; `live-bench hour [MINUTES]`: memory
// over a long stream, HourFeed.swift; `live-bench window`: the cost of one decoding of the window, full and shortened,
// and `live-bench window-text` the words, WindowProfile.swift)
// (`fast`: the transcriber also reports `.fastResults`, a decoding step every 0.5 s instead of 1 s; `all`: the clips of
// every English subset, ls-other and the noisy calls too; LIVE_BENCH_TEXTS=FILE writes each clip's file-mode text and
// live finals; LIVE_BENCH_CAPTURE=FILE the captured audio.)
// A PulseAudio daemon of its own with a virtual microphone (TestSupport.PulseAudioDaemon); English corpus clips
// (ls-clean, jfk, other; at most MAX_CLIPS, default 12) played into it in real time, 1.5 s apart, captured by
// AVAudioEngine (tap at 16 kHz mono) into one SpeechAnalyzer session with a volatile SpeechTranscriber (word
// times) and the SpeechDetector, as `listen` runs it. Per reference word (word times of the same clip transcribed
// from file, shifted to where the clip's sound begins in the captured audio): the delay from the word's end reaching
// the microphone to its first appearance in a result (volatile or final) and in a final result. Also the finals'
// WER against the file's, and the process's CPU use while listening.
import Foundation
import OpenSpeech
import SpeechEvaluation
import Synchronization
import TestSupport

setenv("OPENSPEECH_HOME", TestModels.home.path, 1)
let tinyEnglish = try await TestModels.directory(for: "whisper-tiny.en")
_ = try await TestModels.directory(for: "silero-vad")
// `live-bench listen [MAX_CLIPS] [all] [-- LISTEN_ARGUMENTS...]`: `openspeech listen` itself (ListenFeed.swift).
let listenMode = CommandLine.arguments.dropFirst().first == "listen"
let benchArguments = listenMode ? Array(CommandLine.arguments.dropFirst(2).prefix { $0 != "--" })
    : Array(CommandLine.arguments.dropFirst())
let limit = benchArguments.first.flatMap(Int.init) ?? 12
let subsets = benchArguments.contains("all")
    ? ["ls-clean", "ls-other", "noisy", "jfk", "other"] : ["ls-clean", "jfk", "other"]
let clips = Corpus.items.filter { $0.language == "en" && subsets.contains($0.subset) && $0.durationSeconds < 20 }
    .prefix(limit)
let english = Locale(identifier: "en-US")
if CommandLine.arguments.dropFirst().first == "hour" {  // live-bench hour [MINUTES]: see HourFeed.swift
    try await runHourFeed(minutes: CommandLine.arguments.dropFirst(2).first.flatMap(Int.init) ?? 60, clips: Array(clips))
    exit(0)
}
if CommandLine.arguments.dropFirst().first == "finals" {  // live-bench finals [SUBSETS]: see FinalsFeed.swift
    let subsets = CommandLine.arguments.dropFirst(2).first.map { Set($0.split(separator: ",").map(String.init)) }
    try await runFinalsFeed(subsets: subsets ?? ["ls-clean", "ls-other", "other", "jfk", "noisy"], locale: english)
    exit(0)
}
if CommandLine.arguments.dropFirst().first == "speakers" {  // live-bench speakers OUT_DIR FILES...: SpeakerFeed.swift
    let arguments = Array(CommandLine.arguments.dropFirst(2))
    _ = try await TestModels.directory(for: "campplus-sv-zh-en")
    try await runSpeakerFeed(outputDirectory: URL(fileURLWithPath: arguments[0]),
                             files: arguments.dropFirst().map { URL(fileURLWithPath: $0) })
    exit(0)
}
if CommandLine.arguments.dropFirst().first == "window-text" {
    try runWindowText(clips: Array(clips), modelDirectory: tinyEnglish)
    exit(0)
}
if CommandLine.arguments.dropFirst().first == "window" {  // live-bench window: see WindowProfile.swift
    try runWindowProfile(clips: Array(clips), modelDirectory: tinyEnglish)
    exit(0)
}

func percentile(_ values: [Double], _ p: Double) -> Double {
    guard !values.isEmpty else { return .nan }
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
}
func normalized(_ word: String) -> String { word.lowercased().filter { $0.isLetter || $0.isNumber || $0 == "'" } }
func seconds(_ host: UInt64) -> Double { AVAudioTime.seconds(forHostTime: host) }

// 1. Each clip from file: the reference word times and the file-mode text.
struct ReferenceWord { var word: String; var start: Double; var end: Double }
var fileWords: [[ReferenceWord]] = [], fileTexts: [String] = []
let files = FileTranscriber(options: .init(locale: english, wordTimestamps: true))
for clip in clips {
    let transcript = try await files.transcribe(contentsOf: clip.wav16kURL)
    fileTexts.append(transcript.text)
    fileWords.append(transcript.segments.flatMap { segment in
        segment.words.isEmpty
            ? [ReferenceWord(word: segment.text, start: segment.start, end: segment.end)]
            : segment.words.map { ReferenceWord(word: $0.word, start: $0.start, end: $0.end) }
    })
}

if listenMode {
    let listenArguments = Array(CommandLine.arguments.drop { $0 != "--" }.dropFirst())
    try await runListenFeed(arguments: listenArguments, clips: Array(clips), fileWords: fileWords, fileTexts: fileTexts)
    exit(0)
}

// 2. Live.
let daemon = try PulseAudioDaemon()
setenv("PULSE_SERVER", daemon.serverAddress, 1)
defer { daemon.stop() }

/// A result as it arrived: its normalized timed words (for the delays) and its runs' own text with their times (for the
/// finals' text, each run given to the clip it was heard in).
struct Arrival { var host: UInt64; var isFinal: Bool; var words: [(String, Double, Double)]; var runs: [(String, Double?)] }
let arrivals = Mutex<[Arrival]>([])
let captured = Mutex<(samples: [Float], anchors: [(Int, UInt64)])>(([], []))

let fast = CommandLine.arguments.contains("fast")
let transcriber = SpeechTranscriber(locale: english, transcriptionOptions: [],
                                    reportingOptions: fast ? [.volatileResults, .fastResults] : [.volatileResults],
                                    attributeOptions: [.audioTimeRange],
                                    engineConfiguration: .init(modelID: ProcessInfo.processInfo.environment["LIVE_BENCH_MODEL"],
                                                               beamSize: ProcessInfo.processInfo.environment["LIVE_BENCH_BEAM"].flatMap(Int.init)))
let detector = SpeechDetector(detectionOptions: .init(sensitivityLevel: .medium), reportResults: false)
let analyzer = SpeechAnalyzer(modules: [transcriber, detector])
let format = await SpeechAnalyzer.bestAvailableAudioFormat(compatibleWith: [transcriber])!
try await analyzer.prepareToAnalyze(in: format)
let collector = Task {
    for try await result in transcriber.results {
        let host = AVAudioTime.now()
        let words = result.text.runs.compactMap { run -> (String, Double, Double)? in
            guard let range = run.audioTimeRange else { return nil }
            let word = normalized(String(result.text[run.range].characters))
            return word.isEmpty ? nil : (word, range.start.seconds, range.end.seconds)
        }
        let runs = result.text.runs.map { run in
            (String(result.text[run.range].characters), run.audioTimeRange.map { ($0.start.seconds + $0.end.seconds) / 2 })
        }
        arrivals.withLock { $0.append(Arrival(host: host, isFinal: result.isFinal, words: words, runs: runs)) }
    }
}
let (stream, continuation) = AsyncStream<AnalyzerInput>.makeStream()
let engine = AVAudioEngine()
/// Installs the tap from a nonisolated function: a block formed in top-level code is main-actor isolated and would trap
/// when the engine calls it on its own thread (as with Apple's engine in Swift 6 mode).
nonisolated func installTap(on engine: AVAudioEngine, format: AVAudioFormat,
                            continuation: AsyncStream<AnalyzerInput>.Continuation) {
    engine.inputNode.installTap(onBus: 0, bufferSize: 1_600, format: format) { buffer, time in
        let samples = Array(UnsafeBufferPointer(start: buffer.floatChannelData![0], count: Int(buffer.frameLength)))
        captured.withLock { $0.anchors.append(($0.samples.count, time.hostTime)); $0.samples += samples }
        continuation.yield(AnalyzerInput(buffer: buffer))
    }
}
installTap(on: engine, format: format, continuation: continuation)
try engine.start()
let analysis = Task { try await analyzer.analyzeSequence(stream) }
var usageBefore = rusage()
getrusage(RUSAGE_SELF.rawValue, &usageBefore)
let wallStart = AVAudioTime.now()
let playStarts = try await play(Array(clips), into: daemon)
try await Task.sleep(for: .seconds(3))
var usageAfter = rusage()
getrusage(RUSAGE_SELF.rawValue, &usageAfter)
let wall = seconds(AVAudioTime.now() - wallStart)
engine.stop()
continuation.finish()
_ = try await analysis.value
try await analyzer.finalizeAndFinishThroughEndOfInput()
try await collector.value
func cpuSeconds(_ usage: rusage) -> Double {
    Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
}
let cpu = (cpuSeconds(usageAfter) - cpuSeconds(usageBefore)) / wall

// 3. Where each clip's sound begins in the captured audio, and each reference word's end there.
let (samples, anchors) = captured.withLock { ($0.samples, $0.anchors) }
// LIVE_BENCH_CAPTURE=FILE: the audio the analyzer was given, as raw 32-bit float 16 kHz mono (to replay a run offline:
// `ffmpeg -f f32le -ar 16000 -ac 1 -i FILE run.wav`, then `openspeech transcribe --live - < run.wav`).
if let path = ProcessInfo.processInfo.environment["LIVE_BENCH_CAPTURE"] {
    try samples.withUnsafeBufferPointer { Data(buffer: $0) }.write(to: URL(fileURLWithPath: path))
}
func hostTime(atSample index: Int) -> UInt64 {
    let anchor = anchors.last { $0.0 <= index } ?? anchors[0]
    return anchor.1 + UInt64(Double(index - anchor.0) / 16_000 * 1e9)
}
func sample(atHost host: UInt64) -> Int {
    let anchor = anchors.last { $0.1 <= host } ?? anchors[0]
    return anchor.0 + max(0, Int(Double(Int64(host) - Int64(anchor.1)) / 1e9 * 16_000))
}
var volatileDelays: [Double] = [], finalDelays: [Double] = [], missedVolatile = 0, missedFinal = 0
let allArrivals = arrivals.withLock { $0 }
var shifts: [Double?] = []  // clip time + shift = analyzer time
for (index, clip) in clips.enumerated() {
    let audio = try MonoAudio.load(contentsOf: clip.wav16kURL)
    let searchFrom = max(0, sample(atHost: playStarts[index]) - 1_600)
    guard let clipOnset = audio.firstIndex(where: { abs($0) > 1e-3 }),
          let onset = samples[searchFrom...].firstIndex(where: { abs($0) > 1e-3 }) else { shifts.append(nil); continue }
    shifts.append(Double(onset - clipOnset) / 16_000)
}
// The finals' text of each clip: every run goes to the last clip that began (less 0.75 s, half the silence between
// clips) before the middle of the run's time range, so a final that ends one clip and begins the next is split
// between them; untimed runs (spaces, punctuation) follow the run before.
var liveTexts: [String] = Array(repeating: "", count: clips.count)
var clipOfRun = 0
for arrival in allArrivals where arrival.isFinal {
    for (text, middle) in arrival.runs {
        if let middle { clipOfRun = shifts.lastIndex { $0.map { $0 - 0.75 <= middle } ?? false } ?? 0 }
        liveTexts[clipOfRun] += text
    }
    liveTexts[clipOfRun] += " "
}
for index in clips.indices {
    guard let shift = shifts[index] else { continue }
    for word in fileWords[index] {
        let name = normalized(word.word), start = word.start + shift, end = word.end + shift
        let heardAt = hostTime(atSample: Int(end * 16_000))
        func firstArrival(finalOnly: Bool) -> UInt64? {
            allArrivals.first { arrival in
                (!finalOnly || arrival.isFinal) && arrival.words.contains { $0.0 == name && $0.1 < end + 0.5 && $0.2 > start - 0.5 }
            }?.host
        }
        if let host = firstArrival(finalOnly: false) { volatileDelays.append(seconds(host) - seconds(heardAt)) } else { missedVolatile += 1 }
        if let host = firstArrival(finalOnly: true) { finalDelays.append(seconds(host) - seconds(heardAt)) } else { missedFinal += 1 }
    }
}

var fileErrors = ErrorCounts(), liveErrors = ErrorCounts()
for (index, clip) in clips.enumerated() {
    fileErrors = fileErrors + WordErrorRate.score(reference: clip.transcript, hypothesis: fileTexts[index], language: "en")
    liveErrors = liveErrors + WordErrorRate.score(reference: clip.transcript, hypothesis: liveTexts[index], language: "en")
}
try writeClipTexts(clips: Array(clips), fileTexts: fileTexts, liveTexts: liveTexts)
let audioSeconds = clips.map(\.durationSeconds).reduce(0, +)
print("live-bench: \(ProcessInfo.processInfo.environment["LIVE_BENCH_MODEL"] ?? "the default model"), \(fast ? "volatile + fastResults" : "volatile"), detector on")
print(String(format: "%d clips, %.1f s of speech, %.1f s listening; drops %lld frames", clips.count, audioSeconds, wall, engine.droppedFrameCount))
print(String(format: "first appearance (volatile or final) after the word's end: median %.2f s, p95 %.2f s (%d words, %d never)",
             percentile(volatileDelays, 0.5), percentile(volatileDelays, 0.95), volatileDelays.count, missedVolatile))
print(String(format: "final after the word's end:                             median %.2f s, p95 %.2f s (%d words, %d never)",
             percentile(finalDelays, 0.5), percentile(finalDelays, 0.95), finalDelays.count, missedFinal))
print(String(format: "WER: live finals %.2f %%, file mode %.2f %%", liveErrors.rate * 100, fileErrors.rate * 100))
print(String(format: "CPU while listening: %.0f %% of one core", cpu * 100))

/// LIVE_BENCH_TEXTS=FILE: each clip's id, file-mode text and live finals, tab-separated, to see where they differ.
func writeClipTexts(clips: [CorpusItem], fileTexts: [String], liveTexts: [String]) throws {
    guard let path = ProcessInfo.processInfo.environment["LIVE_BENCH_TEXTS"] else { return }
    let lines = clips.indices.map { "\(clips[$0].id)\t\(fileTexts[$0])\t\(liveTexts[$0])\n" }
    try lines.joined().write(toFile: path, atomically: true, encoding: .utf8)
}
