/// The `conversation.item.input_audio_transcription.delta` texts of one item, as OpenAI's: increments that a client
/// appends, never retracted. While the item's speech is still arriving, the increments are the words the volatile
/// transcription committed (`LocalAgreement`: two decodings agreed, or one was sure); once the item is committed, its
/// file transcription's text extends what was sent. When that text begins with the words sent (compared without case
/// and punctuation), the rest of it follows as deltas, so the deltas add up to the completed transcript (up to the
/// case and punctuation of the words sent early); when it does not, no more deltas are sent, and the `completed`
/// event's transcript, always the file transcription's, is the one to keep (as OpenAI's documentation advises for
/// any client: the completed transcript replaces the deltas).
///
/// A pure value type, tested without a model.
struct TranscriptDeltas: Sendable, Equatable {
    /// Everything sent so far, concatenated.
    private(set) var sent = ""
    /// The final text contradicted the words sent: nothing more is sent.
    private(set) var diverged = false

    /// The delta for `increment`, words the volatile transcription committed (with their leading space); nil when
    /// there is nothing to send. The item's first delta has no leading space.
    mutating func volatile(_ increment: String) -> String? {
        guard !diverged else { return nil }
        let delta = sent.isEmpty ? String(increment.drop { $0.isWhitespace }) : increment
        guard !delta.isEmpty else { return nil }
        sent += delta
        return delta
    }

    /// The delta that takes the client from what was sent to `text`, the item's final transcript so far (it grows
    /// as its results become final); nil when `text` adds nothing to what was sent, or contradicts it.
    mutating func final(_ text: String) -> String? {
        guard !diverged else { return nil }
        let text = String(text.drop { $0.isWhitespace })
        if text.hasPrefix(sent) {
            let delta = String(text.dropFirst(sent.count))
            guard !delta.isEmpty else { return nil }
            sent = text
            return delta
        }
        let sentWords = Self.words(sent).map(\.normalized)
        let textWords = Self.words(text)
        guard textWords.count > sentWords.count else {
            // The final text has not reached the end of what was sent yet: wait, unless it already disagrees.
            if !sentWords.starts(with: textWords.map(\.normalized)) { diverged = true }
            return nil
        }
        guard textWords.prefix(sentWords.count).map(\.normalized) == sentWords else {
            diverged = true
            return nil
        }
        let rest = sentWords.isEmpty ? text.startIndex : textWords[sentWords.count - 1].end
        let delta = String(text[rest...])
        guard !delta.isEmpty else { return nil }
        sent += delta
        return delta
    }

    /// The words of `text` that have letters or digits, each lower-cased without punctuation, and where it ends.
    private static func words(_ text: String) -> [(normalized: String, end: String.Index)] {
        var words: [(normalized: String, end: String.Index)] = []
        var index = text.startIndex
        while index < text.endIndex {
            guard !text[index].isWhitespace else {
                index = text.index(after: index)
                continue
            }
            let end = text[index...].firstIndex { $0.isWhitespace } ?? text.endIndex
            let normalized = text[index..<end].lowercased().filter { $0.isLetter || $0.isNumber }
            if !normalized.isEmpty { words.append((normalized, end)) }
            index = end
        }
        return words
    }
}
