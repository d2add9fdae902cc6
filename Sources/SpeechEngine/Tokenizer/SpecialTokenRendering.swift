/// What `WhisperTokenizer.decode` does with special tokens (every id from `<|endoftext|>` on:
/// start of transcript, languages, tasks, timestamps...).
public enum SpecialTokenRendering: Sendable {
    /// Leave them out, as faster-whisper's `decode` does.
    case skip
    /// Write them as their text, e.g. `<|en|>` or `<|1.24|>`.
    case render
    /// Write timestamps as `<|1.24|>` and leave the other special tokens out.
    case timestampsOnly
}
