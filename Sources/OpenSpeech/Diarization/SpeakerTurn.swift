/// One speaker talking over a stretch of a recording. OpenSpeech extension: Apple's Speech framework has no speaker
/// module.
public struct SpeakerTurn: Sendable, Equatable, Codable {
    /// Seconds from the start of the audio.
    public var start: Double
    public var end: Double
    /// The speaker's label: "Speaker 1", "Speaker 2"... in order of first appearance.
    public var speaker: String

    public init(start: Double, end: Double, speaker: String) {
        self.start = start
        self.end = end
        self.speaker = speaker
    }

    /// The label of the speaker numbered `index` from 0.
    public static func label(_ index: Int) -> String { "Speaker \(index + 1)" }
}
