import ArgumentParser
import OpenSpeech

/// `--diarize` and the speaker counts: who speaks when, labelled in every output format (`SpeakerDiarizer`).
struct SpeakerOptions: ParsableArguments {
    @Flag(help: "Label who speaks (Speaker 1, Speaker 2... by first appearance): speaker on JSON segments and words, a speaker column in TSV, a line at each change in text, [Speaker 2] at changes in SRT, voice tags in WebVTT.")
    var diarize = false

    @Option(help: ArgumentHelp("With --diarize: how many speakers there are, when known.", valueName: "n"))
    var speakers: Int?

    @Option(help: ArgumentHelp("With --diarize: at least this many speakers.", valueName: "n"))
    var minSpeakers: Int?

    @Option(help: ArgumentHelp("With --diarize: at most this many speakers.", valueName: "n"))
    var maxSpeakers: Int?

    func validate() throws {
        if !diarize && (speakers != nil || minSpeakers != nil || maxSpeakers != nil) {
            throw ValidationError("--speakers, --min-speakers and --max-speakers go with --diarize.")
        }
        do {
            try options(threads: nil)?.validate()
        } catch let error as SpeakerDiarizationError {
            throw ValidationError(error.description)
        }
    }

    /// The diarizer's options, nil without `--diarize`.
    func options(threads: Int?) -> SpeakerDiarizer.Options? {
        diarize ? .init(speakers: speakers, minSpeakers: minSpeakers, maxSpeakers: maxSpeakers, threads: threads) : nil
    }
}
