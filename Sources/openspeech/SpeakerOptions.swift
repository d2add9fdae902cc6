import ArgumentParser
import OpenSpeech

/// `--diarize` and the speaker counts: who speaks when, labelled in every output format (`SpeakerDiarizer`).
struct SpeakerOptions: ParsableArguments {
    @Flag(help: "Label who speaks (Speaker 1, Speaker 2... by first appearance): speaker on JSON segments and words, a speaker column in TSV, a line at each change in text, [Speaker 2] at changes in SRT, voice tags in WebVTT.")
    var diarize = false

    @OptionGroup var counts: SpeakerCounts

    func validate() throws {
        if !diarize && !counts.isEmpty {
            throw ValidationError("--speakers, --min-speakers and --max-speakers go with --diarize.")
        }
    }

    /// The diarizer's options, nil without `--diarize`.
    func options(threads: Int?) -> SpeakerDiarizer.Options? {
        diarize ? counts.options(threads: threads) : nil
    }
}
