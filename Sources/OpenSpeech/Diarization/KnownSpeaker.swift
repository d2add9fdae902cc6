/// A person whose voice is known beforehand: `SpeakerDiarizer` labels the speaker of a recording who sounds like
/// `samples` with `name` instead of "Speaker N" (OpenAI's `known_speaker_names[]` and `known_speaker_references[]`).
/// OpenSpeech extension: Apple's Speech framework has no speaker module.
public struct KnownSpeaker: Sendable, Equatable {
    /// The label the speaker gets: "customer", "Dr. Lee"...
    public var name: String
    /// 16 kHz mono samples of that person speaking alone: 2 to 10 s is plenty; at least
    /// `minimumSpeechSeconds` of it must be speech.
    public var samples: [Float]

    /// Seconds of speech a reference needs: less does not say reliably whose voice it is.
    public static let minimumSpeechSeconds = 1.0

    public init(name: String, samples: [Float]) {
        self.name = name
        self.samples = samples
    }
}
