// `live-bench hour [MINUTES]`: memory and cost per step over a long live stream (issue 14's "memory flat over a
// one-hour stream"), accelerated. The same English clips as the latency run, each followed by 3 s of silence, looped
// to MINUTES (default 60) of audio and fed in 100 ms `AnalyzerInput` buffers as fast as the analyzer takes them, to a
// volatile SpeechTranscriber (word times) beside the SpeechDetector, as `openspeech listen` runs them. Prints the
// process's resident memory, glibc's heap (held from the system, and in use) and the wall time taken per stretch of
// audio every 5 minutes of audio (LIVE_BENCH_EVERY_SECONDS), and the results counted. Results are counted, not kept,
// so the figure is the library's.
import Foundation
import OpenSpeech
import SpeechEngine
import Synchronization
import TestSupport

/// The process's resident set, in megabytes (Linux: /proc/self/statm).
func residentMegabytes() -> Double {
    guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
          let pages = statm.split(separator: " ").dropFirst().first.flatMap({ Double($0) }) else { return .nan }
    return pages * Double(sysconf(Int32(_SC_PAGESIZE))) / 1_048_576
}

/// glibc's heap (`malloc_info`'s totals, megabytes): bytes the allocator holds from the system (arenas and mmapped
/// blocks), and of those the bytes in use; the difference is free memory kept in the arenas (fragmentation); the
/// bytes in blocks mmapped on their own (returned to the system when freed), and the number of arenas.
func heapMegabytes() -> (held: Double, inUse: Double, mmapped: Double, arenas: Int) {
    typealias MallocInfo = @convention(c) (Int32, UnsafeMutablePointer<FILE>?) -> Int32
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_info") else { return (.nan, .nan, .nan, 0) }
    let mallocInfo = unsafeBitCast(symbol, to: MallocInfo.self)
    let path = NSTemporaryDirectory() + "live-bench-malloc-\(getpid()).xml"
    guard let file = fopen(path, "w") else { return (.nan, .nan, .nan, 0) }
    _ = mallocInfo(0, file)
    fclose(file)
    defer { unlink(path) }
    guard let xml = try? String(contentsOfFile: path, encoding: .utf8) else { return (.nan, .nan, .nan, 0) }
    // The process-wide totals follow the last arena: `<total type="fast|rest|mmap" count=".." size="N"/>`, then
    // `<system type="current" size="N"/>`.
    let tail = xml.components(separatedBy: "</heap>").last ?? xml
    func size(_ tag: String) -> Double {
        guard let range = tail.range(of: tag) else { return 0 }
        let rest = tail[range.upperBound...]
        guard let start = rest.range(of: "size=\"") else { return 0 }
        return Double(rest[start.upperBound...].prefix { $0.isNumber }) ?? 0
    }
    let mmapped = size("<total type=\"mmap\"")
    let held = size("<system type=\"current\"") + mmapped
    let free = size("<total type=\"fast\"") + size("<total type=\"rest\"")
    let arenas = xml.components(separatedBy: "<heap nr=").count - 1
    return (held / 1_048_576, (held - free) / 1_048_576, mmapped / 1_048_576, arenas)
}

/// Writes a line to stdout at once (unbuffered: progress shows while the run goes on).
func report(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

/// Buffers of a looped recording, made as the consumer asks for them; `checkpoint` is told the sample reached
/// before each buffer.
struct LoopedFeed: AsyncSequence, Sendable {
    typealias Element = AnalyzerInput
    let loop: [Float]
    let totalSamples: Int
    let checkpoint: @Sendable (Int) -> Void

    struct AsyncIterator: AsyncIteratorProtocol {
        let feed: LoopedFeed
        var position = 0
        mutating func next() async -> AnalyzerInput? {
            feed.checkpoint(position)
            guard position < feed.totalSamples else { return nil }
            let count = Swift.min(1_600, feed.totalSamples - position)
            let format = AVAudioFormat(standardFormatWithSampleRate: 16_000, channels: 1)!
            let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: AVAudioFrameCount(count))!
            buffer.frameLength = AVAudioFrameCount(count)
            let channel = buffer.floatChannelData![0]
            for index in 0..<count { channel[index] = feed.loop[(position + index) % feed.loop.count] }
            position += count
            return AnalyzerInput(buffer: buffer)
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(feed: self) }
}

func runHourFeed(minutes: Int, clips: [CorpusItem]) async throws {
    // LIVE_BENCH_SHAPES=1: the engine logs each new matrix-product shape it plans (stderr), to count them over time.
    if ProcessInfo.processInfo.environment["LIVE_BENCH_SHAPES"] == "1" { EngineLog.level = .debug }
    var loop: [Float] = []
    for clip in clips {
        loop += try MonoAudio.load(contentsOf: clip.wav16kURL)
        loop += [Float](repeating: 0, count: 3 * 16_000)
    }
    let english = Locale(identifier: "en-US")
    // LIVE_BENCH_COMPUTE: the transcriber's compute type (default: the library's, float32), e.g. int8 to finish sooner.
    let compute = ProcessInfo.processInfo.environment["LIVE_BENCH_COMPUTE"].flatMap(ComputeType.init(rawValue:)) ?? .default
    let transcriber = SpeechTranscriber(locale: english, transcriptionOptions: [], reportingOptions: [.volatileResults],
                                        attributeOptions: [.audioTimeRange],
                                        engineConfiguration: .init(computeType: compute))
    let detector = SpeechDetector(detectionOptions: .init(sensitivityLevel: .medium), reportResults: false)
    let analyzer = SpeechAnalyzer(modules: [transcriber, detector])
    let format = await SpeechAnalyzer.bestAvailableAudioFormat(compatibleWith: [transcriber])!
    try await analyzer.prepareToAnalyze(in: format)
    let counts = Mutex((finals: 0, volatiles: 0, finalWords: 0))
    // LIVE_BENCH_FINALS=PATH: each final's text and times, a line each (to compare transcripts between builds).
    let finalsFile = ProcessInfo.processInfo.environment["LIVE_BENCH_FINALS"].flatMap { path -> FileHandle? in
        FileManager.default.createFile(atPath: path, contents: nil)
        return FileHandle(forWritingAtPath: path)
    }
    let collector = Task {
        for try await result in transcriber.results {
            let words = String(result.text.characters).split(separator: " ").count
            if result.isFinal, let finalsFile {
                let line = String(format: "%.2f %.2f ", result.range.start.seconds, result.range.end.seconds)
                    + String(result.text.characters) + "\n"
                finalsFile.write(Data(line.utf8))
            }
            counts.withLock {
                if result.isFinal { $0.finals += 1; $0.finalWords += words } else { $0.volatiles += 1 }
            }
        }
    }
    // LIVE_BENCH_EVERY_SECONDS: audio between reports (default 300).
    let every = (ProcessInfo.processInfo.environment["LIVE_BENCH_EVERY_SECONDS"].flatMap(Int.init) ?? 300) * 16_000
    let started = Date()
    let marks = Mutex((next: 0, lastWall: 0.0))
    report(String(format: "hour feed: %.1f s loop (%d clips + 3 s pauses), %d min of audio, volatile + detector, whisper-tiny.en",
                 Double(loop.count) / 16_000, clips.count, minutes) + " \(compute)")
    report("audio min | RSS MB | heap held / in use MB | wall s since the last | finals | final words | volatiles | mmapped MB | arenas")
    let feed = LoopedFeed(loop: loop, totalSamples: minutes * 60 * 16_000) { position in
        marks.withLock { mark in
            guard position >= mark.next else { return }
            let wall = Date().timeIntervalSince(started)
            let (finals, volatiles, words) = counts.withLock { ($0.finals, $0.volatiles, $0.finalWords) }
            let heap = heapMegabytes()
            var line = String(format: "%9.1f | %6.1f | %7.1f / %7.1f | %21.1f | %6d | %11d | %9d", Double(position) / (60 * 16_000),
                              residentMegabytes(), heap.held, heap.inUse, wall - mark.lastWall, finals, words, volatiles)
                + String(format: " | %10.1f | %6d", heap.mmapped, heap.arenas)
            // LIVE_BENCH_MALLOC_TRIM=1: glibc's malloc_trim(0) at each report, and the resident size after it (what
            // of the arenas' free memory the system gets back).
            if ProcessInfo.processInfo.environment["LIVE_BENCH_MALLOC_TRIM"] == "1" {
                typealias MallocTrim = @convention(c) (Int) -> Int32
                if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") {
                    _ = unsafeBitCast(symbol, to: MallocTrim.self)(0)
                    line += String(format: " | RSS after malloc_trim %.1f MB", residentMegabytes())
                }
            }
            report(line)
            mark = (mark.next + every, wall)
        }
    }
    _ = try await analyzer.analyzeSequence(feed)
    try await analyzer.finalizeAndFinishThroughEndOfInput()
    try await collector.value
    let (finals, volatiles, words) = counts.withLock { ($0.finals, $0.volatiles, $0.finalWords) }
    report(String(format: "end: RSS %.1f MB; %d finals (%d words), %d volatiles; %.0f s wall for %d min of audio",
                 residentMegabytes(), finals, words, volatiles, Date().timeIntervalSince(started), minutes))
}
