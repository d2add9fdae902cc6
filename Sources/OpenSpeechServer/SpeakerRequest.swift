import Foundation
import OpenSpeech
import SpeechAudio

/// What a transcription request asks about speakers, read from its form fields and checked before any work:
/// `response_format=diarized_json` (OpenAI's), or `diarize=true` (an OpenSpeech extension) for speakers in
/// `verbose_json`, `text`, `srt` and `vtt`; known speakers as OpenAI takes them, `known_speaker_names[]` with one
/// `known_speaker_references[]` each (a data URL of a 2 to 10 s clip of that person alone; up to 4); and the
/// OpenSpeech extensions `speakers`, `min_speakers`, `max_speakers` (the CLI's `--speakers`...). Nil (no
/// diarization) when none of these asks for it.
struct SpeakerRequest: Sendable {
    /// The diarizer's options, known speakers' reference clips decoded.
    var options: SpeakerDiarizer.Options
    /// The known speakers' names, in the order given.
    var names: [String]

    /// Known speakers a request may give, as OpenAI allows.
    static let maxKnownSpeakers = 4
    /// The longest name accepted (it is repeated in every segment of the answer).
    static let maxNameLength = 100
    /// The longest reference clip taken, in seconds: OpenAI asks for 2 to 10 s; a longer one is refused rather than
    /// decoded without end (a few megabytes of compressed audio can hold hours).
    static let maxReferenceSeconds = 30.0

    /// The fields' names, as a form sends them (`[]` is the `openai` package's; without it is accepted too).
    static let nameFields = ["known_speaker_names[]", "known_speaker_names"]
    static let referenceFields = ["known_speaker_references[]", "known_speaker_references"]

    /// The speaker request of `upload`, nil when it asks for no speakers. Reference clips are decoded here (in
    /// `upload`'s folder); whether they hold enough speech is the diarizer's check, when the request runs.
    static func parse(_ upload: MultipartUpload, format: ResponseFormat, task: TranscriptionRequest.Operation,
                      stream: Bool) throws -> SpeakerRequest? {
        let diarize = ["true", "1"].contains(upload.field("diarize")?.trimmingCharacters(in: .whitespaces).lowercased() ?? "")
        let names = nameFields.flatMap { upload.fields[$0] ?? [] }
        let references = referenceFields.flatMap { upload.fields[$0] ?? [] }
        let speakers = try count("speakers", upload), minSpeakers = try count("min_speakers", upload)
        let maxSpeakers = try count("max_speakers", upload)

        guard format == .diarizedJSON || diarize else {
            if !names.isEmpty || !references.isEmpty || speakers != nil || minSpeakers != nil || maxSpeakers != nil {
                throw APIError(.badRequest, "known_speaker_names[], known_speaker_references[], speakers, min_speakers "
                               + "and max_speakers go with response_format=diarized_json or diarize=true.",
                               param: names.isEmpty && references.isEmpty ? "speakers" : "known_speaker_names",
                               code: "invalid_value")
            }
            return nil
        }
        if format == .diarizedJSON && task == .translate {
            throw APIError(.badRequest, "diarized_json is a transcription format; translate with response_format="
                           + "verbose_json and diarize=true for speakers.", param: "response_format", code: "invalid_value")
        }
        if format == .json {
            throw APIError(.badRequest, "The json format holds only the text, no speakers: ask for response_format="
                           + "diarized_json (or verbose_json, text, srt or vtt with diarize=true).", param: "diarize",
                           code: "invalid_value")
        }
        if stream && format != .diarizedJSON {
            throw APIError(.badRequest, "A streamed transcription carries speakers only with response_format="
                           + "diarized_json (transcript.text.segment events).", param: "diarize", code: "invalid_value")
        }

        let known = try knownSpeakers(names: names, references: references, folder: upload.directory)
        let options = SpeakerDiarizer.Options(speakers: speakers, minSpeakers: minSpeakers, maxSpeakers: maxSpeakers,
                                              knownSpeakers: known)
        do {
            try options.validate()
        } catch let error as SpeakerDiarizationError {
            let param = if case .invalidKnownSpeakers = error { "known_speaker_names" } else { "speakers" }
            throw APIError(.badRequest, error.description, param: param, code: "invalid_value")
        }
        return SpeakerRequest(options: options, names: names)
    }

    /// A speaker count field: a whole number (1 to 100, as the library checks), or nil when absent or empty.
    private static func count(_ field: String, _ upload: MultipartUpload) throws -> Int? {
        guard let text = upload.field(field)?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        guard let value = Int(text) else {
            throw APIError(.badRequest, "\(field) must be a whole number of speakers; got `\(text.prefix(40))`.",
                           param: field, code: "invalid_value")
        }
        return value
    }

    /// The known speakers: each name with its reference clip decoded to 16 kHz mono.
    private static func knownSpeakers(names: [String], references: [String], folder: URL) throws -> [KnownSpeaker] {
        guard names.count == references.count else {
            throw APIError(.badRequest, "Give one known_speaker_references[] clip per known_speaker_names[] name; got "
                           + "\(names.count) names and \(references.count) references.", param: "known_speaker_names",
                           code: "invalid_value")
        }
        guard names.count <= maxKnownSpeakers else {
            throw APIError(.badRequest, "At most \(maxKnownSpeakers) known speakers are taken; got \(names.count).",
                           param: "known_speaker_names", code: "invalid_value")
        }
        for name in names where name.count > maxNameLength {
            throw APIError(.badRequest, "A known speaker's name is at most \(maxNameLength) characters; "
                           + "`\(name.prefix(20))...` is \(name.count).", param: "known_speaker_names", code: "invalid_value")
        }
        return try zip(names, references).enumerated().map { index, pair in
            KnownSpeaker(name: pair.0, samples: try referenceSamples(pair.1, name: pair.0, index: index, folder: folder))
        }
    }

    /// How an error names reference `index` (from 0) of the speaker `name`.
    static func referenceName(index: Int, name: String) -> String {
        "known_speaker_references[] \(index + 1) (for `\(name)`)"
    }

    /// The 16 kHz mono samples of a reference clip sent as a data URL, decoded from a file in `folder` (removed after).
    private static func referenceSamples(_ field: String, name: String, index: Int, folder: URL) throws -> [Float] {
        let what = referenceName(index: index, name: name)
        let clip: DataURL
        do {
            clip = try DataURL(field)
        } catch {
            throw APIError(.badRequest, "\(what) \(error.description).", param: "known_speaker_references",
                           code: "invalid_known_speaker_reference")
        }
        let file = folder.appendingPathComponent("reference-\(index).\(clip.fileExtension)")
        defer { try? FileManager.default.removeItem(at: file) }
        do {
            try clip.data.write(to: file)
        } catch {
            var failure = APIError(.internalServerError, "Could not store the upload.", type: "server_error")
            failure.detail = "writing \(file.path): \(error)"
            throw failure
        }
        do {
            let reader = try MonoAudioReader(url: file)
            let limit = Int(maxReferenceSeconds * MonoAudio.speechSampleRate)
            var samples: [Float] = []
            while samples.count <= limit {
                let piece = try reader.read()
                if piece.isEmpty { return samples }
                samples += piece
            }
            throw APIError(.badRequest, "\(what) is longer than \(Int(maxReferenceSeconds)) s; send a clip of 2 to 10 s "
                           + "of \(name) speaking alone.", param: "known_speaker_references",
                           code: "invalid_known_speaker_reference")
        } catch let error as AudioError {
            let reason = error.description.replacingOccurrences(of: file.path, with: "the clip")
            throw APIError(.badRequest, "\(what) could not be read as audio: \(reason)", param: "known_speaker_references",
                           code: "invalid_known_speaker_reference")
        }
    }

    /// The API's error for the diarizer's refusal of this request: a reference with too little speech is the
    /// client's to fix (400, naming it); a missing model the operator's (404, as a missing transcription model).
    func apiError(for error: SpeakerDiarizationError) -> APIError {
        switch error {
        case .unusableReference(let name, let seconds):
            let what = Self.referenceName(index: names.firstIndex(of: name) ?? 0, name: name)
            let problem = seconds <= 0 ? "holds no speech"
                : "holds only \(String(format: "%.1f", seconds)) s of speech, under the "
                    + "\(String(format: "%g", KnownSpeaker.minimumSpeechSeconds)) s needed to know a voice"
            return APIError(.badRequest, "\(what) \(problem); send 2 to 10 s of \(name) speaking alone.",
                            param: "known_speaker_references", code: "invalid_known_speaker_reference")
        case .modelNotInstalled(let id):
            return APIError.diarizationModelMissing(id)
        case .invalidSpeakerCount(let reason):
            return APIError(.badRequest, reason, param: "speakers", code: "invalid_value")
        case .invalidKnownSpeakers(let reason):
            return APIError(.badRequest, reason, param: "known_speaker_names", code: "invalid_value")
        }
    }
}
