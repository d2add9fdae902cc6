import ArgumentParser
import Foundation
import SpeechEngine
import SpeechEvaluation

/// Which of Moonshine's cross-attention heads align words in time (`MoonshineWordAlignment.alignmentHeads`): each
/// group of heads (by default every head alone) aligns each clip, and its word starts and ends are compared with
/// Whisper's word times (its alignment heads, faster-whisper's method) on the words both models wrote (matched by a
/// longest common subsequence of their lower-cased letters). Prints one line per group, best first: mean absolute
/// start and end differences, the mean signed start difference, and the words compared.
struct MoonshineHeadsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "moonshine-heads",
                                                    abstract: "Moonshine's cross-attention heads against Whisper's word times.")

    @Option(help: "Moonshine model directory.") var model: String
    @Option(help: "Whisper model directory (the reference word times).") var whisper: String
    @Option(help: "Head groups, e.g. \"5.2+4.6,5.2\" (layer.head, + joins, commas separate); default: every head alone.")
    var groups: String?
    @Argument(help: "16 kHz mono WAV files, at most 30 s each.") var files: [String]

    func run() throws {
        let moonshine = MoonshineSession(model: try MoonshineModel(directory: URL(fileURLWithPath: model)))
        let reference = WhisperSession(model: try WhisperModel(directory: URL(fileURLWithPath: whisper)))
        let headGroups: [[(layer: Int, head: Int)]] = try groups.map(Self.parse)
            ?? (0..<8).flatMap { layer in (0..<8).map { [(layer: layer, head: $0)] } }
        var totals = [(start: Double, end: Double, bias: Double, count: Int)](repeating: (0, 0, 0, 0), count: headGroups.count)
        var options = TranscriptionOptions()
        options.wordTimestamps = true
        for file in files {
            let samples = try WAVReader.samples(URL(fileURLWithPath: file))
            let expected = try reference.transcribe(samples: samples, options: options).flatMap { $0.words ?? [] }
            let (_, aligned) = try moonshine.alignments(clip: samples, headGroups: headGroups)
            for (g, words) in aligned.enumerated() {
                for (i, j) in CommonWords.pairs(words.map(\.word), expected.map(\.word)) {
                    let a = words[i], b = expected[j]
                    totals[g].start += abs(a.start - b.start)
                    totals[g].end += abs(a.end - b.end)
                    totals[g].bias += a.start - b.start
                    totals[g].count += 1
                }
            }
            FileHandle.standardError.write(Data("\(file)\n".utf8))
        }
        let ranked = headGroups.indices.sorted {
            (totals[$0].start + totals[$0].end) / Double(max(1, totals[$0].count))
                < (totals[$1].start + totals[$1].end) / Double(max(1, totals[$1].count))
        }
        for g in ranked {
            let t = totals[g], n = Double(max(1, t.count))
            let name = headGroups[g].map { "\($0.layer).\($0.head)" }.joined(separator: "+")
            print(String(format: "%@\tstart %.3f s\tend %.3f s\tbias %+.3f s\twords %d", name, t.start / n, t.end / n,
                         t.bias / n, t.count))
        }
    }

    static func parse(_ text: String) throws -> [[(layer: Int, head: Int)]] {
        try text.split(separator: ",").map { group in
            try group.split(separator: "+").map { pair in
                let parts = pair.split(separator: ".").compactMap { Int($0) }
                guard parts.count == 2 else { throw ValidationError("a head is layer.head: \(pair)") }
                return (layer: parts[0], head: parts[1])
            }
        }
    }
}
