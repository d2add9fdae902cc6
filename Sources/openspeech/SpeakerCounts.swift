import ArgumentParser
import OpenSpeech

/// `--speakers`, `--min-speakers`, `--max-speakers`: how many speakers to tell apart (`transcribe --diarize`,
/// `diarize`).
struct SpeakerCounts: ParsableArguments {
    @Option(help: ArgumentHelp("How many speakers there are, when known.", valueName: "n"))
    var speakers: Int?

    @Option(help: ArgumentHelp("At least this many speakers.", valueName: "n"))
    var minSpeakers: Int?

    @Option(help: ArgumentHelp("At most this many speakers.", valueName: "n"))
    var maxSpeakers: Int?

    var isEmpty: Bool { speakers == nil && minSpeakers == nil && maxSpeakers == nil }

    func validate() throws {
        do {
            try options(threads: nil).validate()
        } catch let error as SpeakerDiarizationError {
            throw ValidationError(error.description)
        }
    }

    /// The diarizer's options with these counts.
    func options(threads: Int?) -> SpeakerDiarizer.Options {
        .init(speakers: speakers, minSpeakers: minSpeakers, maxSpeakers: maxSpeakers, threads: threads)
    }
}
