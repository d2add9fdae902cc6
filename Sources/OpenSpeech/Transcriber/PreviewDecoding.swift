import SpeechEngine

/// How a volatile-only preview decodes the window, cheaper than an agreement decoding. Previews' words are shown as
/// volatile text and never committed, so finals (full 30 s encodings, as file transcription) do not depend on this.
/// A pure value type, tested without a model.
///
/// - The encoder hears the window's audio and at least `paddingPositions` of Whisper's padding, rounded up to whole
///   seconds, not the padded 30 s (whisper.cpp's `audio_ctx`). The encoder is most of a decoding's cost and grows
///   faster than linearly with its positions: a preview of a 4 s window costs about a third of a full decoding in
///   float32 (a seventh in int8; BENCHMARKS.md). With under a second or two of padding the model tends to loop
///   ("and so and so and so..."), hence three seconds. Whole seconds keep the encoder's matrix shapes to 30, so the
///   engine's products cached per shape stay few over a long stream.
/// - The products run in int8 when the session's are float32 or bf16 and the CPU runs int8 through oneDNN
///   (`computeType(forSession:)`): a preview then costs about a third of a float32 one (BENCHMARKS.md, `bench/live
///   window`: 40–200 ms of CPU against 120–570 ms), its whole-clip WER on the 12 live clips that of a full float32
///   decoding; the model is loaded a second time at that precision (whisper-tiny.en: 39 M weights, about 40 MB).
/// - The tokens decoded are capped in proportion to the speech heard (`maxNewTokens`), so a loop costs little, and a loop
///   that still came out is cut (`withoutLoops`).
package struct PreviewDecoding: Sendable, Equatable {
    /// Encoder positions (20 ms each) of padding kept after the audio, at least.
    package var paddingPositions = 150
    /// The count of positions is a multiple of this (one second).
    var granule = 50
    /// Tokens a second of audio may take (speech runs at about 4 words, 5 tokens with timestamps, a second).
    var tokensPerSecond = 12.0
    /// Tokens any preview may take.
    var baseTokens = 12
    /// A phrase of this many words or more said twice in a row in a preview is a loop.
    var loopPhraseWords = 4

    /// Previews decode at the session's own precision (false: int8 where `computeType(forSession:)` allows).
    package var sessionPrecision = false

    package init() {}

    /// The compute type previews decode with when it is not the session's `computeType`, else nil: int8 for a
    /// float32 or bf16 session where int8 runs through oneDNN (`ComputeType.int8.resolved` is int8).
    func computeType(forSession computeType: ComputeType) -> ComputeType? {
        guard !sessionPrecision, ComputeType.int8.resolved == .int8 else { return nil }
        switch computeType.resolved {
        case .float32, .bfloat16: return .int8
        default: return nil
        }
    }

    /// Positions of a 30 s window: the encoder's whole context.
    static let fullPositions = 1_500

    /// The positions to encode for a window of `samples` samples at 16 kHz.
    package func positions(forSamples samples: Int) -> Int {
        let audio = (max(0, samples) + 319) / 320
        let wanted = audio + paddingPositions
        let rounded = (wanted + granule - 1) / granule * granule
        return min(Self.fullPositions, max(granule, rounded))
    }

    /// The most tokens a preview of `samples` samples at 16 kHz decodes.
    func maxNewTokens(forSamples samples: Int) -> Int {
        baseTokens + Int((Double(max(0, samples)) / 16_000 * tokensPerSecond).rounded(.up))
    }

    /// `words` without repetition loops: a short phrase said three times or more keeps its first occurrence
    /// (`RepetitionGuard`), and from the first phrase of `loopPhraseWords` or more words repeated at once, only that
    /// first occurrence is kept (what follows it in a looping preview is not speech).
    func withoutLoops(_ words: [Word]) -> [Word] {
        let kept = RepetitionGuard.keptIndices(words.map(\.word)).map { words[$0] }
        let keys = kept.map { LocalAgreement.normalized($0.word) }
        guard keys.count >= 2 * loopPhraseWords else { return kept }
        for start in 0...(keys.count - 2 * loopPhraseWords) {
            for length in stride(from: (keys.count - start) / 2, through: loopPhraseWords, by: -1)
            where keys[start..<(start + length)].elementsEqual(keys[(start + length)..<(start + 2 * length)]) {
                return Array(kept[..<(start + length)])
            }
        }
        return kept
    }
}
