/// The analysis context's phrases and the prompts they start (`PromptComposition`), tokenized once per context:
/// shared by a transcriber's processor, which sets the context, and its strategy, which asks for prompts. Lives on
/// the processor's executor (not `Sendable`).
final class ContextPrompt {
    private let encode: (String) -> [Int]
    /// The context's strings (all tags): the phrases the engine's contextual biasing favours.
    private(set) var phrases: [String]
    /// The prompt policy for these phrases (nil: not tokenized since they changed).
    private var composition: PromptComposition?

    init(phrases: [String], encode: @escaping (String) -> [Int]) {
        self.phrases = phrases
        self.encode = encode
    }

    func set(phrases: [String]) {
        self.phrases = phrases
        composition = nil
    }

    /// The prompt before the next window: the context's words (when few), then the tail of `text`.
    func tokens(after text: String) -> [Int] {
        let composition = composition ?? PromptComposition(contextTokens: phrases.isEmpty ? []
            : encode(" " + phrases.joined(separator: ", ") + "."))
        self.composition = composition
        return composition.tokens(previous: text.isEmpty ? [] : encode(text))
    }
}
