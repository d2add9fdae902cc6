import ArgumentParser
import Foundation
import OpenSpeech

/// `openspeech diarize FILE...`: who speaks when, without transcribing: RTTM lines (the format diarization tools
/// score), one JSON object per file, or text.
struct DiarizeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diarize",
        abstract: "Tell who speaks when in audio files (speaker turns), without transcribing them.")

    enum Format: String, ExpressibleByArgument, CaseIterable { case rttm, json, text }

    @Argument(help: "Audio or video files; - reads one from stdin.", completion: .file())
    var files: [String]

    @Option(help: "rttm (one SPEAKER line per turn), json (one object per file) or text.")
    var format: Format = .text

    @OptionGroup var counts: SpeakerCounts

    @Option(help: "Threads for the speaker model (default: the cores available).")
    var threads: Int?

    @Flag(help: "Fail instead of installing a missing model.")
    var noDownload = false

    func validate() throws {
        if let threads, !(1...256).contains(threads) { throw ValidationError("--threads must be from 1 to 256, not \(threads).") }
    }

    func run() async throws {
        let diarizer = SpeakerDiarizer(options: counts.options(threads: threads))
        if !noDownload { try await diarizer.installModels() }
        var failed = false
        for path in files {
            do {
                let result: SpeakerDiarizer.Result
                if path == "-" {
                    // Audio on stdin (any container), read to its end into a temporary file first.
                    let copy = try SpooledInput(source: "stdin")
                    defer { copy.remove() }
                    try copy.copy(from: STDIN_FILENO)
                    result = try await diarizer.diarize(contentsOf: copy.url)
                } else {
                    result = try await diarizer.diarize(contentsOf: URL(fileURLWithPath: path))
                }
                if let notice = result.notice { FileHandle.standardError.write(Data("openspeech: \(path): \(notice)\n".utf8)) }
                print(try document(result, file: path), terminator: "")
            } catch {
                failed = true
                FileHandle.standardError.write(Data("openspeech: \(path): \(error)\n".utf8))
            }
        }
        if failed { throw ExitCode.failure }
    }

    private func document(_ result: SpeakerDiarizer.Result, file: String) throws -> String {
        switch format {
        case .rttm:
            let name = URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent.replacingOccurrences(of: " ", with: "_")
            return result.turns.map { turn in
                String(format: "SPEAKER %@ 1 %.3f %.3f <NA> <NA> %@ <NA> <NA>\n", name, turn.start, turn.end - turn.start,
                       turn.speaker.replacingOccurrences(of: " ", with: "_"))
            }.joined()
        case .json:
            let object: [String: Any] = [
                "file": file, "speakers": result.speakers,
                "turns": result.turns.map { ["start": $0.start, "end": $0.end, "speaker": $0.speaker] as [String: Any] },
            ]
            return String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self) + "\n"
        case .text:
            return result.turns.map { String(format: "%8.2f %8.2f  %@\n", $0.start, $0.end, $0.speaker) }.joined()
        }
    }
}
