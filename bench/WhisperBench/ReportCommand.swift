import ArgumentParser
import Foundation
import SpeechEvaluation

/// Reads `BenchRun` JSON files of both engines and prints, per model and beam: RTFx over the whole
/// run, load time, peak RSS, word error rate per subset, and OpenSpeech's ratios to faster-whisper.
struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "report", abstract: "Tables from run JSON files.")

    @Option(help: "Summary JSON to write.") var output: String?
    @Flag(help: "Also print each clip with errors: normalized reference and transcript.") var showErrors = false
    @Argument(help: "Run JSON files (openspeech and faster-whisper).") var runs: [String]

    struct Row: Codable {
        var model: String
        var beamSize: Int
        /// The instruction-set limit of the run ("none": the CPU's full ISA).
        var isa: String
        var engine: String
        var rtfx: Double
        var loadSeconds: Double
        var peakRssMB: Double
        var audioSeconds: Double
        var wallSeconds: Double
        var blasCore: String?
        var failures: Int
        /// Error rate (0...1) per subset; " (CER)" subsets are scored by characters.
        var errorRates: [String: Double]
        var errorCounts: [String: ErrorCounts]
    }

    struct Summary: Codable {
        var machine: MachineInfo
        var rows: [Row]
    }

    func run() throws {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let loaded = try runs.map { try decoder.decode(BenchRun.self, from: Data(contentsOf: URL(fileURLWithPath: $0))) }
        var subsets: [String] = []
        let rows = loaded.map { run -> Row in
            var counts: [String: ErrorCounts] = [:]
            for clip in run.clips {
                let score = WordErrorRate.score(reference: clip.reference, hypothesis: clip.text, language: clip.language)
                let subset = WordErrorRate.characterScoredLanguages.contains(clip.language) ? "\(clip.subset) (CER)" : clip.subset
                if !subsets.contains(subset) { subsets.append(subset) }
                counts[subset, default: ErrorCounts()] += score
                if clip.language == "en" { counts["all en", default: ErrorCounts()] += score }
            }
            let engine = "\(run.engine) \(run.options.computeType)"
            return Row(model: run.model, beamSize: run.options.beamSize, isa: run.isaLimit ?? "none", engine: engine,
                       rtfx: run.wallSeconds > 0 ? run.audioSeconds / run.wallSeconds : 0, loadSeconds: run.loadSeconds,
                       peakRssMB: Double(run.peakRssBytes) / 1_048_576, audioSeconds: run.audioSeconds,
                       wallSeconds: run.wallSeconds, blasCore: run.blasCore,
                       failures: run.clips.filter { $0.error != nil }.count,
                       errorRates: counts.mapValues(\.rate), errorCounts: counts)
        }
        .sorted { ($0.model, $0.isa, $0.beamSize, engineRank($0.engine), $0.engine) < ($1.model, $1.isa, $1.beamSize, engineRank($1.engine), $1.engine) }
        subsets.append("all en")

        if showErrors { printClipErrors(loaded) }

        let machine = MachineInfo.current()
        print(machine.summary)
        for core in Set(rows.compactMap(\.blasCore)).sorted() { print("OpenSpeech runs used: \(core)") }
        print()
        printSpeed(rows)
        print()
        printErrorRates(rows, subsets: subsets)

        if let output {
            let encoder = JSONEncoder()
            encoder.keyEncodingStrategy = .convertToSnakeCase
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(Summary(machine: machine, rows: rows)).write(to: URL(fileURLWithPath: output), options: .atomic)
        }
    }

    private func printClipErrors(_ runs: [BenchRun]) {
        for run in runs {
            print("== \(run.engine) \(run.options.computeType) \(run.model) beam \(run.options.beamSize)")
            for clip in run.clips {
                let normalizer = TextNormalizer.forLanguage(clip.language)
                let reference = normalizer.normalize(clip.reference), hypothesis = normalizer.normalize(clip.text)
                let score = WordErrorRate.score(reference: clip.reference, hypothesis: clip.text, language: clip.language)
                guard score.errors > 0 else { continue }
                print("\(clip.id) [\(clip.subset)] \(score.errors)/\(score.referenceLength)\n  ref: \(reference)\n  hyp: \(hypothesis)")
            }
        }
        print()
    }

    /// OpenSpeech first, then faster-whisper int8, then float32.
    private func engineRank(_ engine: String) -> Int {
        engine.hasPrefix("openspeech") ? 0 : engine.hasSuffix("int8") ? 1 : engine.hasSuffix("float32") ? 2 : 3
    }

    private func groups(_ rows: [Row]) -> [[Row]] {
        var result: [[Row]] = []
        for row in rows {
            if let last = result.last?.last, last.model == row.model, last.beamSize == row.beamSize, last.isa == row.isa {
                result[result.count - 1].append(row)
            } else {
                result.append([row])
            }
        }
        return result
    }

    private func printSpeed(_ rows: [Row]) {
        var table = TextTable(["model", "ISA limit", "beam", "engine", "RTFx", "load s", "peak RSS MB", "WER en %", "failures"])
        for group in groups(rows) {
            for row in group {
                table.add([row.model, row.isa, "\(row.beamSize)", row.engine, fixed(row.rtfx, 1), fixed(row.loadSeconds, 2),
                           fixed(row.peakRssMB, 0), row.errorRates["all en"].map { fixed($0 * 100, 2) } ?? "-", "\(row.failures)"])
            }
            for ours in group where ours.engine.hasPrefix("openspeech") {
                for other in group where !other.engine.hasPrefix("openspeech") {
                    let name = other.engine.replacingOccurrences(of: "faster-whisper ", with: "fw ")
                    table.add(["", "", "", "\(ours.engine.replacingOccurrences(of: "openspeech ", with: "os ")) / \(name)",
                               ratio(ours.rtfx, other.rtfx), ratio(ours.loadSeconds, other.loadSeconds),
                               ratio(ours.peakRssMB, other.peakRssMB),
                               difference(ours.errorRates["all en"], other.errorRates["all en"]), ""])
                }
            }
            table.separator()
        }
        print("Speed (RTFx = audio seconds / transcription wall seconds over the whole run; load excluded):")
        print(table.render())
    }

    private func printErrorRates(_ rows: [Row], subsets: [String]) {
        var table = TextTable(["model", "ISA limit", "beam", "engine"] + subsets.map { "\($0) %" })
        for group in groups(rows) {
            for row in group {
                table.add([row.model, row.isa, "\(row.beamSize)", row.engine] + subsets.map { subset in
                    row.errorRates[subset].map { fixed($0 * 100, 2) } ?? "-"
                })
            }
            table.separator()
        }
        print("Word error rate per subset, % (both texts through the same normalizer; (CER): character error rate):")
        print(table.render())
    }

    private func fixed(_ value: Double, _ digits: Int) -> String { String(format: "%.\(digits)f", value) }
    private func ratio(_ a: Double, _ b: Double) -> String { b > 0 ? String(format: "%.2fx", a / b) : "-" }
    private func difference(_ a: Double?, _ b: Double?) -> String {
        guard let a, let b else { return "-" }
        return String(format: "%+.2f pt", (a - b) * 100)
    }
}
