import Foundation
import OpenSpeech

/// Writes each input's transcript where `OutputPlan` says, as soon as it is done, so an interrupted batch keeps what
/// it finished: each file whole or not at all (`AtomicFileWriter`: a temporary file beside it, renamed into place),
/// stdout's documents joined by `StandardOutputDocuments`. A failure is a sentence naming the path.
struct TranscriptWriter {
    let plan: OutputPlan
    let layout: SubtitleLayout
    let highlightWords: Bool
    /// Whether JSON lists each word's times (`--word-timestamps`).
    let words: Bool
    private var standardOutput: StandardOutputDocuments

    init(plan: OutputPlan, several: Bool, layout: SubtitleLayout, highlightWords: Bool, words: Bool) {
        self.plan = plan
        self.layout = layout
        self.highlightWords = highlightWords
        self.words = words
        standardOutput = StandardOutputDocuments(format: plan.format.formats[0], several: several)
    }

    /// Writes `transcript`'s documents for `input`; returns the files written (none on stdout).
    @discardableResult
    mutating func write(_ transcript: Transcript, for input: TranscriptionInput) throws -> [URL] {
        var written: [URL] = []
        for (format, url) in plan.destinations(for: input) {
            guard let url else {
                let text = try standardOutput.next(transcript, input: input.path, layout: layout,
                                                   highlightWords: highlightWords, words: words)
                do {
                    try FileHandle.standardOutput.write(contentsOf: Data(text.utf8))
                } catch {
                    throw CommandFailure("cannot write \(input.path)'s \(format.documentName) to stdout: \(error.localizedDescription).")
                }
                continue
            }
            let text = try transcript.formatted(as: format, layout: layout, highlightWords: highlightWords, words: words)
            try AtomicFileWriter.write(Data(text.utf8), to: url, what: "\(format.documentName) of \(input.path)")
            written.append(url)
        }
        return written
    }
}
