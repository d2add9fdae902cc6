import ArgumentParser
import Foundation
import SpeechEngine

/// Runs the custom-vocabulary dev set (`../shared/bias`: manifest.tsv with per-utterance biasing lists) through the
/// engine and writes a hypothesis file (`id<TAB>text`) for its `score.py`.
struct BiasCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bias", abstract: "Transcribe the contextual-biasing dev set with a biasing list.")

    @Option(help: "Dev set folder (manifest.tsv, wav16k/).") var set = "../shared/bias"
    @Option(help: "CTranslate2 Whisper model directory.") var model: String
    @Option(help: "Biasing list: none, 10, 100, 1000, distractors (the N=100 list without the utterance's rare words). 10: the utterance's rare words and every tenth distractor of the N=100 list (a short list, as people type).")
    var list = "100"
    @Flag(help: "Give the list as the initial prompt (words joined with \", \").") var prompt = false
    @Flag(help: "Boost the list's words in decoding (token trie, shallow fusion).") var trie = false
    @Option(help: "Boost per token.") var weight = TranscriptionOptions.defaultBiasingWeight
    @Option(help: "Beam size (1: greedy).") var beamSize = 5
    @Option(help: "Threads (default: the cores available).") var threads: Int?
    @Option(help: "Compute type.") var computeType = "float32"
    @Option(help: "Only the first N utterances.") var limit: Int?
    @Flag(help: "Give every utterance the first utterance's list (a fixed vocabulary, as an app has: the biasing is built once, so the CPU time is the decoding's cost alone; the error rates then mean nothing).")
    var sameList = false
    @Option(help: "Hypothesis file to write.") var output: String

    func run() throws {
        let folder = URL(fileURLWithPath: set)
        let text = try String(contentsOf: folder.appendingPathComponent("manifest.tsv"), encoding: .utf8)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: true).map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
        let header = lines.removeFirst()
        func column(_ name: String) throws -> Int {
            guard let i = header.firstIndex(of: name) else { throw ValidationError("no column \(name)") }
            return i
        }
        let (idC, audioC, rareC, b100C, b1000C) = (try column("id"), try column("audio"), try column("rare_words"),
                                                  try column("biasing_100"), try column("biasing_1000"))
        if let limit { lines = Array(lines.prefix(limit)) }
        guard let type = ComputeType(rawValue: computeType) else { throw ValidationError("unknown compute type") }
        let whisper = try WhisperModel(directory: URL(fileURLWithPath: model), threads: threads, computeType: type)
        let session = WhisperSession(model: whisper)
        var out = "", wall = 0.0, cpu = 0.0, audio = 0.0
        for var row in lines {
            if sameList { (row[rareC], row[b100C], row[b1000C]) = (lines[0][rareC], lines[0][b100C], lines[0][b1000C]) }
            let words: [String]
            switch list {
            case "none": words = []
            case "10":
                let rare = Set(row[rareC].split(separator: " ").map(String.init))
                let distractors = row[b100C].split(separator: " ").map(String.init).filter { !rare.contains($0) }
                words = (distractors.enumerated().filter { $0.offset % 10 == 0 }.map(\.element) + rare).sorted()
            case "100": words = row[b100C].split(separator: " ").map(String.init)
            case "1000": words = row[b1000C].split(separator: " ").map(String.init)
            case "distractors":
                let rare = Set(row[rareC].split(separator: " ").map(String.init))
                words = row[b100C].split(separator: " ").map(String.init).filter { !rare.contains($0) }
            default: throw ValidationError("unknown list \(list)")
            }
            var options = TranscriptionOptions(language: "en", beamSize: beamSize)
            if prompt && !words.isEmpty { options.initialPrompt = words.joined(separator: ", ") }
            if trie { options.biasingPhrases = words; options.biasingWeight = weight }
            let samples = try WAVReader.samples(folder.appendingPathComponent(row[audioC]))
            let start = ContinuousClock.now, cpuStart = processCPUSeconds()
            let segments = try session.transcribe(samples: samples, options: options)
            wall += (ContinuousClock.now - start).seconds
            cpu += processCPUSeconds() - cpuStart
            audio += Double(samples.count) / 16000
            let hyp = segments.map(\.text).joined().replacingOccurrences(of: "\t", with: " ")
                .replacingOccurrences(of: "\n", with: " ").trimmingCharacters(in: .whitespaces)
            out += "\(row[idC])\t\(hyp)\n"
        }
        try out.write(toFile: output, atomically: true, encoding: .utf8)
        // The CPU seconds (all threads) are the figure to compare on a shared machine: wall time counts waiting.
        FileHandle.standardError.write(Data(String(format: "%.1f s of audio in %.2f s (%.1fx real time), %.2f CPU s\n",
                                                   audio, wall, audio / wall, cpu).utf8))
    }
}

/// CPU time used by the whole process (user and system, all threads), in seconds.
private func processCPUSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}
