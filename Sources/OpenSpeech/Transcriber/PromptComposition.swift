/// The model's prompt for the next stretch of audio: the analysis context's words when they are few, then as much of
/// the text already transcribed as fits, so a long transcript never pushes the context out.
///
/// A long list (a custom language model's vocabulary, a hundred names) stays out of the prompt: decoding boosts it
/// anyway (`TranscriptionOptions.biasingPhrases`), and a prompt of many unrelated words on top of the boost makes
/// Whisper drop and replace words it otherwise gets right, where a short list in the prompt helps beside the boost
/// (BENCHMARKS.md, custom vocabulary: on `../shared/bias`, 100 words in the prompt and boosted raise U-WER by 1.7
/// points; 10 words lower it by 0.6 and B-WER by 78 %).
struct PromptComposition: Sendable, Equatable {
    /// Whisper's prompt holds at most this many tokens (half the decoder's context, less the start tokens).
    static let limit = 223
    /// A context of more tokens than this (about 30 words) is boosted in decoding only; the text before keeps the rest.
    static let contextLimit = limit / 2

    /// The context's tokens the prompt starts with: empty when there is no context or it is too long.
    let context: [Int]

    init(contextTokens: [Int]) {
        context = contextTokens.count <= Self.contextLimit ? contextTokens : []
    }

    /// The prompt: the context, then the end of `previous` (the tokens of the text before).
    func tokens(previous: [Int]) -> [Int] {
        context + previous.suffix(Self.limit - context.count)
    }
}
