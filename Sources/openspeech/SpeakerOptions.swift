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

    /// The live speaker detector's options, nil without `--diarize`. Live, speakers are labelled as they come: a count
    /// is at most that many (`--speakers` as `--max-speakers`), and `--min-speakers` cannot be honoured.
    func liveOptions() throws -> SpeakerDetector.Options? {
        guard diarize else { return nil }
        if counts.minSpeakers != nil {
            throw ValidationError("--min-speakers is for files: live, speakers are labelled as they start speaking; give "
                + "--max-speakers (or --speakers) to cap them.")
        }
        return SpeakerDetector.Options(maxSpeakers: counts.speakers ?? counts.maxSpeakers)
    }

    /// The diarizer's options, nil without `--diarize`.
    func options(threads: Int?) -> SpeakerDiarizer.Options? {
        diarize ? counts.options(threads: threads) : nil
    }
}
