import OpenSpeech

/// Speakers labelled as OpenAI's diarized transcriptions label them: a known speaker by the name given in
/// `known_speaker_names[]`, the others by capital letters `A`, `B`... in order of first appearance (after `Z`: `AA`,
/// `AB`...), a letter that is one of the names given skipped. Every format the server answers with speakers uses these
/// labels (`diarized_json`, and `verbose_json`, `text`, `srt` and `vtt` with `diarize=true`); the library's own,
/// "Speaker 1"..., are the command line's.
enum OpenAISpeakerLabels {
    /// The label of the unnamed speaker numbered `index` from 0: `A`...`Z`, `AA`...
    static func letters(_ index: Int) -> String {
        var index = index
        var label = ""
        repeat {
            label = String(UnicodeScalar(UInt8(65 + index % 26))) + label
            index = index / 26 - 1
        } while index >= 0
        return label
    }

    /// The turns of `result` relabelled: a known speaker keeps its name, the others get letters.
    static func turns(of result: SpeakerDiarizer.Result, names: [String]) -> [SpeakerTurn] {
        turns(result.turns, speakers: result.speakers, known: result.namedSpeakers, names: names)
    }

    /// `turns` relabelled: the labels of `known` kept, the other `speakers` (in order of first appearance) lettered
    /// apart from `names`.
    static func turns(_ turns: [SpeakerTurn], speakers: [String], known: [String], names: [String]) -> [SpeakerTurn] {
        let known = Set(known)
        let taken = Set(names)
        var labels: [String: String] = [:]
        var next = 0
        for speaker in speakers where !known.contains(speaker) {
            while taken.contains(letters(next)) { next += 1 }
            labels[speaker] = letters(next)
            next += 1
        }
        return turns.map { SpeakerTurn(start: $0.start, end: $0.end, speaker: labels[$0.speaker] ?? $0.speaker) }
    }

    /// The label of speech no speaker was found for (the diarizer heard none where the transcript has text): the
    /// first unnamed speaker's.
    static func unlabelled(names: [String]) -> String {
        let taken = Set(names)
        var next = 0
        while taken.contains(letters(next)) { next += 1 }
        return letters(next)
    }
}
